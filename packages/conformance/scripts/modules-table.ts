/**
 * Writes the README's module table (between `<!-- modules:start -->` and `<!-- modules:end -->`)
 * from the plans: module → sections → the test that runs it. `test/readme.test.ts` checks it is
 * current. Run: `node --import tsx scripts/modules-table.ts` in this package.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PLANS } from '../src/plans/index.js';

/** The test file that runs each plan whole. */
export const PLAN_TESTS: Readonly<Record<string, string>> = {
  'oidcc-basic-certification-test-plan': 'test/basic-plan.test.ts',
  'oidcc-config-certification-test-plan': 'test/config-plan.test.ts',
  'oidcc-rp-initiated-logout-certification-test-plan': 'test/logout-plan.test.ts',
  'fapi2-security-profile-final-test-plan': 'test/fapi2-plan.test.ts',
  'mcp-authorization-server': 'test/mcp-plan.test.ts',
};

/** The README table, one section per plan. */
export function modulesTable(): string {
  const out: string[] = [];
  for (const plan of PLANS) {
    out.push(
      `### \`${plan.id}\``,
      '',
      `${plan.title}. Test: [\`${PLAN_TESTS[plan.id]}\`](${PLAN_TESTS[plan.id]}).`,
      '',
    );
    out.push('| Module | Sections | What it checks |', '| --- | --- | --- |');
    for (const module of plan.modules) {
      out.push(
        `| \`${module.name}\` | ${module.sections.join(', ')} | ${module.summary.replaceAll('|', '\\|')} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

/** The README with its table replaced. */
export function withTable(readme: string): string {
  const start = '<!-- modules:start -->';
  const end = '<!-- modules:end -->';
  return `${readme.slice(0, readme.indexOf(start) + start.length)}\n\n${modulesTable()}\n${readme.slice(readme.indexOf(end))}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = fileURLToPath(new URL('../README.md', import.meta.url));
  writeFileSync(path, withTable(readFileSync(path, 'utf8')));
}
