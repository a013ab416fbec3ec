/**
 * `gatehouse-conformance --issuer <url> --plan <plan id> [--config <file>] [--junit <file>]`:
 * runs a plan, prints the summary, writes JUnit XML when asked, and exits 1 when a module failed
 * (2 on a usage error).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { type ConformanceConfig, loadConfig } from './config.js';
import { findPlan, PLANS } from './plans/index.js';
import { junit, summary } from './report.js';
import { runPlan } from './runner.js';

function help(): string {
  const plans = PLANS.map(
    (plan) =>
      `  ${plan.id.padEnd(52)} ${plan.modules.length} modules${plan.interactive ? '' : ', needs only --issuer'}`,
  );
  return [
    'Usage: gatehouse-conformance --issuer <url> --plan <plan id> [--config <file>] [options]',
    '',
    'Runs an OpenID Foundation OP test plan (or the MCP authorization-server profile) against any',
    "authorization server over HTTP; the user's part (login, consent, logout) in Chromium.",
    'This is not an OpenID Foundation certification (see the README: what certifying takes).',
    '',
    'Plans:',
    ...plans,
    '',
    'Options:',
    '  --issuer <url>      the issuer under test (its discovery document is read from it)',
    '  --plan <id>         the plan to run (above)',
    '  --config <file>     JSON: clients, user, page selectors (README: "The config file")',
    '  --junit <file>      also write the results as JUnit XML',
    '  --module <name>     run only this module (repeatable)',
    "  --list              list the plan's modules and the sections each checks, run nothing",
    '  --verbose           print each module as it ends',
    '  --help              this text',
    '',
    'Exit status: 0 when no module failed, 1 when one did, 2 on a usage error.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  function parse(args: string[]) {
    return parseArgs({
      args,
      options: {
        issuer: { type: 'string' },
        plan: { type: 'string' },
        config: { type: 'string' },
        junit: { type: 'string' },
        module: { type: 'string', multiple: true },
        list: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  }
  try {
    ({ values } = parse(argv));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${help()}`);
    return 2;
  }
  if (values.help) {
    console.log(help());
    return 0;
  }
  const plan = values.plan ? findPlan(values.plan) : undefined;
  if (!plan) {
    console.error(`${values.plan ? `unknown plan ${values.plan}` : '--plan is required'}\n\n${help()}`);
    return 2;
  }
  if (values.list) {
    for (const module of plan.modules) console.log(`${module.name.padEnd(72)} ${module.sections.join(' ')}`);
    return 0;
  }
  const config: ConformanceConfig = values.config ? await loadConfig(values.config) : {};
  const issuer = values.issuer ?? config.issuer;
  if (!issuer) {
    console.error(`--issuer is required\n\n${help()}`);
    return 2;
  }
  if (plan.interactive && !values.config) {
    console.error(`${plan.id} signs a user in: it needs --config (clients, user, page selectors)`);
    return 2;
  }
  const result = await runPlan(plan, {
    issuer,
    config,
    ...(values.module ? { only: values.module } : {}),
    ...(values.verbose ? { log: (line: string) => console.error(line) } : {}),
  });
  if (values.junit) await writeFile(values.junit, junit(result));
  console.log(summary(result));
  return result.modules.some((module) => module.outcome === 'failed') ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
