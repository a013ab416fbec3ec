import { afterEach, describe, expect, it, vi } from 'vitest';
import { probe, type Runtime } from './runtimes.js';

const target: Runtime['target'] = { name: 'nowhere', cwd: '.', command: ['nowhere'] };
/** A runtime whose version probe is `version`. */
const runtime = (version: () => string): Runtime => ({ target, version, answered: async () => {} });

describe('probe', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reports the version a runnable binary prints', () => {
    expect(probe(runtime(() => 'Nowhere 1.2.3'))).toEqual({ version: 'Nowhere 1.2.3' });
  });

  it('skips a runtime whose binary cannot run, saying why and how to get it', () => {
    vi.stubEnv('GATEHOUSE_RUNTIMES_REQUIRED', '');
    const missing = runtime(() => {
      throw Object.assign(new Error('Command failed: nowhere --version'), {
        stderr: '\nsh: 1: nowhere: not found\n',
      });
    });
    expect(probe(missing)).toEqual({
      skip: 'nowhere cannot run on this machine (sh: 1: nowhere: not found); `pnpm install` fetches it',
    });
  });

  it('fails instead of skipping when GATEHOUSE_RUNTIMES_REQUIRED is set (CI)', () => {
    vi.stubEnv('GATEHOUSE_RUNTIMES_REQUIRED', '1');
    const missing = runtime(() => {
      throw new Error('spawn nowhere ENOENT');
    });
    expect(() => probe(missing)).toThrow('nowhere cannot run on this machine (spawn nowhere ENOENT)');
  });
});
