/** The README's module table is the plans' (regenerate: `node --import tsx scripts/modules-table.ts`). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withTable } from '../scripts/modules-table.js';

describe('README', () => {
  it('lists every module of every plan with its sections and test', () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    expect(readme).toBe(withTable(readme));
  });
});
