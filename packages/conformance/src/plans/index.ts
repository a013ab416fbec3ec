/** The plans the command runs, by the id the OpenID Foundation gives them (and `mcp-authorization-server`). */
import type { TestPlan } from '../runner.js';
import { basicPlan } from './basic.js';
import { configPlan } from './config.js';
import { fapi2Plan } from './fapi2.js';
import { logoutPlan } from './logout.js';
import { mcpPlan } from './mcp.js';

/** Every plan, in the order `--help` lists them. */
export const PLANS: readonly TestPlan[] = [basicPlan, configPlan, logoutPlan, fapi2Plan, mcpPlan];

/** The plan with this id, or `undefined`. */
export function findPlan(id: string): TestPlan | undefined {
  return PLANS.find((plan) => plan.id === id);
}
