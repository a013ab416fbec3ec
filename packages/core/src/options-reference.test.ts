import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../scripts/options-reference.mjs', import.meta.url));

describe('the options reference', () => {
  it('docs/options.md and the known option names are generated from the current options.ts', async () => {
    // Fails (exit 1, naming the stale file) after an option is added without regenerating.
    await expect(promisify(execFile)('node', [script, '--check'])).resolves.toBeDefined();
  });
});
