import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord } from '@gatehousejs/core';
import { fileAuditSink } from '@gatehousejs/core/node';
import { describe, expect, it } from 'vitest';
import { basic, post, testInstance } from '../../test/fixtures';

describe('fileAuditSink', () => {
  it('appends one JSON record per line to the file, keeping what was there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gatehouse-audit-'));
    try {
      const path = join(dir, 'audit.jsonl');
      const first = fileAuditSink(path);
      const t = await testInstance({ audit: first });
      const fail = () =>
        t.gatehouse.fetch(
          post('/oauth2/v1/token', { grant_type: 'client_credentials' }, { Authorization: basic('x', 'y') }),
        );
      await fail();
      await first.close();
      const second = fileAuditSink(path);
      const u = await testInstance({ audit: second });
      await u.gatehouse.fetch(
        post('/oauth2/v1/token', { grant_type: 'client_credentials' }, { Authorization: basic('z', 'y') }),
      );
      await second.close();
      const lines = (await readFile(path, 'utf8')).split('\n');
      expect(lines.at(-1)).toBe('');
      const records = lines.slice(0, -1).map((line) => JSON.parse(line) as AuditRecord);
      expect(records.map((r) => [r.type, r.clientId])).toEqual([
        ['client.authentication_failed', 'x'],
        ['client.authentication_failed', 'z'],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a file it cannot write through the logger, and the request is still answered', async () => {
    const errors: unknown[][] = [];
    const sink = fileAuditSink('/nonexistent-dir/audit.jsonl');
    const t = await testInstance({
      audit: sink,
      logger: { warn() {}, error: (...a) => void errors.push(a) },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: 'client_credentials' }, { Authorization: basic('x', 'y') }),
    );
    expect(response.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors[0]?.[0]).toBe('gatehouse: an audit sink failed');
    expect((errors[0]![1] as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});
