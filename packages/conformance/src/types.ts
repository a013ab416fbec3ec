/**
 * The shapes of a run: what a test module is, what it found, and what a plan's run returns.
 */

/** One HTTP request the tool sent and what came back, kept for failure reports. */
export interface Exchange {
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: string;
  };
  /** Absent when the request failed at the network level (`error` says why). */
  readonly response?: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  readonly error?: string;
}

/**
 * A requirement a module found broken (a failure) or a recommendation it found unmet (a warning),
 * with the specification section it rests on (`OIDCC-3.1.3.7`: OpenID Connect Core 1.0 §3.1.3.7;
 * the README lists the abbreviations) and the exchange that showed it.
 */
export interface Finding {
  readonly section: string;
  readonly message: string;
  readonly exchange?: Exchange;
}

/** How a module ended: every check held, one did not, or the module did not apply. */
export type Outcome = 'passed' | 'failed' | 'skipped';

/** The result of one test module. */
export interface ModuleResult {
  /** The module's name, as the OpenID Foundation's plan names it (`oidcc-server`). */
  readonly module: string;
  /** What the module checks, in one sentence. */
  readonly summary: string;
  /** The specification sections the module checks. */
  readonly sections: readonly string[];
  readonly outcome: Outcome;
  readonly failures: readonly Finding[];
  readonly warnings: readonly Finding[];
  /** Why the module was skipped (the server does not offer what it checks, or the config lacks it). */
  readonly skipReason?: string;
  readonly durationMs: number;
}

/** The result of one plan against one issuer. */
export interface PlanResult {
  readonly plan: string;
  readonly issuer: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly modules: readonly ModuleResult[];
}
