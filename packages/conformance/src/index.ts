/**
 * `@gatehousejs/conformance`: the OpenID Foundation's OP test plans (Basic, Config, RP-initiated
 * logout, FAPI 2.0 Security Profile) and the MCP authorization-server profile, run against any
 * authorization server over HTTP. The `gatehouse-conformance` command uses these; a test suite may
 * call {@link runPlan} directly. Not an OpenID Foundation certification.
 */
export type { GoOptions, Landing, UserAgent } from './browser.js';
export type { BrowserSelectors, ClientConfig, ConformanceConfig, McpConfig } from './config.js';
export { loadConfig } from './config.js';
export type { HttpAnswer, ModuleContext, RequestOptions } from './context.js';
export type { PlanEnv } from './env.js';
export { findPlan, PLANS } from './plans/index.js';
export { counts, describeExchange, junit, summary } from './report.js';
export { type RunOptions, runPlan, type TestModule, type TestPlan } from './runner.js';
export type { Exchange, Finding, ModuleResult, Outcome, PlanResult } from './types.js';
