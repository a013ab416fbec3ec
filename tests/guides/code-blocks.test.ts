/**
 * No guide drifts from the API: every TypeScript block of the guides (`packages/core/docs`, the
 * package READMEs, the README) compiles against the published declarations (`code-blocks.ts` says
 * how partial snippets are read), a block broken the way an API change would break it fails
 * naming its guide and line, and every guide links to the API reference.
 */
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { packagesBuilt } from '../support/pack';
import {
  allGuideBlocks,
  type BlockError,
  checkBlocks,
  type GuideBlock,
  guideBlocks,
  guideFiles,
} from './code-blocks';

const root = fileURLToPath(new URL('../../', import.meta.url));
const format = (error: BlockError) => `${error.guide}:${error.line}:${error.column} ${error.message}`;

/** Where the edited copies of guides are said to be. */
const EDITED = 'edited/';

/** The blocks of a copy of one guide, with `edit` applied to its markdown. */
function editedBlocks(guide: string, edit: (markdown: string) => string): GuideBlock[] {
  const markdown = readFileSync(`${root}${guide}`, 'utf8');
  const edited = edit(markdown);
  if (edited === markdown) throw new Error(`the edit of ${guide} changed nothing`);
  return guideBlocks(`${EDITED}${guide}`, edited);
}

if (!packagesBuilt)
  console.warn('guides: code blocks not checked, the packages are not built (run `pnpm run build`).');

describe.skipIf(!packagesBuilt)('the code blocks of the guides', () => {
  const blocks = packagesBuilt ? allGuideBlocks() : [];
  // Copies of three guides, each broken the way an API change would break it, compiled in the same
  // program (one compilation: the declarations of Express, Next.js and the MCP SDK take a while).
  const broken = packagesBuilt
    ? [
        // An option renamed in a `createGatehouse({ // … })` snippet: the elision does not hide it.
        ...editedBlocks('packages/core/docs/browser-flow.md', (text) =>
          text.replace('  consent: {\n', '  consents: {\n'),
        ),
        // An export renamed in an import.
        ...editedBlocks('packages/core/docs/mcp.md', (text) =>
          text.replace('import { resourceServer }', 'import { resourceServers }'),
        ),
        // An option's value of the wrong type in a complete server.
        ...editedBlocks('packages/core/docs/api-in-another-service.md', (text) =>
          text.replace(
            "{ schemes: ['bearer'], scope: 'reports:read'",
            "{ schemes: 'bearer', scope: 'reports:read'",
          ),
        ),
      ]
    : [];
  let errors: string[] = [];
  beforeAll(() => {
    errors = checkBlocks([...blocks, ...broken]).map(format);
  }, 240_000);

  it('compile against the published declarations, every one', () => {
    const guides = new Set(blocks.map((block) => block.guide));
    console.log(`guides: ${blocks.length} TypeScript blocks of ${guides.size} guides checked`);
    expect(blocks.length).toBeGreaterThan(60);
    expect(errors.filter((error) => !error.startsWith(EDITED))).toEqual([]);
  });

  it('fail when a block no longer matches the API, naming the guide and line', () => {
    const line = (guide: string, text: string) =>
      readFileSync(`${root}${guide}`, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(text)) + 1;
    const consent = line('packages/core/docs/browser-flow.md', '  consent: {');
    const schemes = line(
      'packages/core/docs/api-in-another-service.md',
      "{ schemes: ['bearer'], scope: 'reports:read'",
    );
    const resourceServer = line('packages/core/docs/mcp.md', 'import { resourceServer }');
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `^${EDITED}packages/core/docs/browser-flow.md:${consent}:3 .*'consents' does not exist in type 'GatehouseOptions'`,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^${EDITED}packages/core/docs/mcp.md:${resourceServer}:10 .*has no exported member named 'resourceServers'`,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^${EDITED}packages/core/docs/api-in-another-service.md:${schemes}:\\d+ Type 'string' is not assignable`,
          ),
        ),
      ]),
    );
  });

  it('leave out only what is marked `ts ignore`, and that rarely', () => {
    const ignored = guideFiles().flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(/^\s*```(?:ts|tsx|typescript) [^\n]*\bignore\b/gm)].map(() =>
        relative(root, path),
      ),
    );
    expect(ignored).toEqual(['packages/core/docs/api-in-another-service.md']);
  });
});

describe('the guides', () => {
  it('each link to the API reference (generated reference pages aside)', () => {
    const unlinked = guideFiles()
      .filter((path) => path.includes('/core/docs/') && basename(path) !== 'api-reference.md')
      .filter((path) => !/<!-- Generated .*do not edit\. -->/.test(readFileSync(path, 'utf8').slice(0, 400)))
      .filter((path) => !readFileSync(path, 'utf8').includes('](api-reference.md)'))
      .map((path) => relative(root, path));
    expect(unlinked).toEqual([]);
  });
});
