/**
 * Runs a plan: its modules one after the other, in the plan's order, each in a fresh context (its
 * own browser profile, so no cookie of one module reaches the next), each ending passed, failed or
 * skipped. A module that throws something else than a finding fails with what it threw: a bug in
 * a module (or a server answer it could not read) is never counted as a pass.
 */
import type { ConformanceConfig } from './config.js';
import { ModuleContext, ModuleEnd } from './context.js';
import { PlanEnv } from './env.js';
import type { ModuleResult, PlanResult } from './types.js';

/** One test module, named as the OpenID Foundation's plan names it. */
export interface TestModule {
  readonly name: string;
  /** What it checks, in a sentence. */
  readonly summary: string;
  /** The specification sections it checks (README: the abbreviations). */
  readonly sections: readonly string[];
  run(t: ModuleContext, env: PlanEnv): Promise<void>;
}

/** A plan: its id (as the OpenID Foundation spells it) and its modules in order. */
export interface TestPlan {
  readonly id: string;
  readonly title: string;
  /** Whether the plan drives a browser (the user's part) and needs a config file. */
  readonly interactive: boolean;
  readonly modules: readonly TestModule[];
}

/** Options of {@link runPlan}. */
export interface RunOptions {
  readonly issuer: string;
  readonly config?: ConformanceConfig;
  /** Only the modules whose names are listed (default: all, in the plan's order). */
  readonly only?: readonly string[];
  /** Progress lines (one per module). */
  readonly log?: (line: string) => void;
}

/** Runs `plan` against the issuer; never throws for what the server does. */
export async function runPlan(plan: TestPlan, options: RunOptions): Promise<PlanResult> {
  const config = options.config ?? {};
  const log = options.log ?? (() => {});
  const issuer = options.issuer;
  const env = new PlanEnv(issuer, config);
  const started = Date.now();
  const modules: ModuleResult[] = [];
  try {
    for (const module of plan.modules) {
      if (options.only && !options.only.includes(module.name)) continue;
      const result = await runModule(module, issuer, config, env, log);
      modules.push(result);
      log(`${result.outcome.toUpperCase().padEnd(7)} ${module.name} (${result.durationMs} ms)`);
    }
  } finally {
    await env.close();
  }
  return {
    plan: plan.id,
    issuer,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    modules,
  };
}

async function runModule(
  module: TestModule,
  issuer: string,
  config: ConformanceConfig,
  env: PlanEnv,
  log: (line: string) => void,
): Promise<ModuleResult> {
  const t = new ModuleContext(issuer, config, log);
  const started = Date.now();
  let skipReason: string | undefined;
  try {
    await module.run(t, env);
  } catch (error) {
    if (error instanceof ModuleEnd) {
      if (error.kind === 'skip') skipReason = error.message;
    } else {
      const last = t.exchanges.at(-1);
      t.fail('-', `the module could not complete: ${(error as Error).stack ?? String(error)}`, last);
    }
  } finally {
    await t.end();
  }
  const failed = t.failures.length > 0;
  return {
    module: module.name,
    summary: module.summary,
    sections: module.sections,
    // A skip after a failure is still a failure: what was found stands.
    outcome: failed ? 'failed' : skipReason !== undefined ? 'skipped' : 'passed',
    failures: t.failures,
    warnings: t.warnings,
    ...(skipReason !== undefined && !failed ? { skipReason } : {}),
    durationMs: Date.now() - started,
  };
}
