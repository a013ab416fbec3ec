/**
 * The rules of `tarball-contents.ts` on made-up file lists: each refuses what it names, and a
 * tarball as the build makes it passes. (The real tarballs are checked in `install.test.ts`.)
 */
import { describe, expect, it } from 'vitest';
import { type TarballFile, tarballProblems } from './tarball-contents';

const file = (path: string, text = 'export {};', bytes = text.length): TarballFile => ({ path, text, bytes });

const clean = [
  file('package.json', '{"name":"@gatehousejs/express"}'),
  file('README.md', '# Express'),
  file('LICENSE', 'MIT'),
  file('dist/index.js'),
  file('dist/index.cjs'),
  file('dist/index.d.ts'),
  file('dist/index.d.cts'),
  file('migrations/001_init.sql', 'CREATE TABLE t (id text);'),
];

describe('tarball contents', () => {
  it('accept what the build publishes', () => {
    expect(tarballProblems('@gatehousejs/express', clean)).toEqual([]);
  });

  it('refuse sources, tests and source maps', () => {
    const problems = tarballProblems('@gatehousejs/express', [
      ...clean,
      file('src/index.ts'),
      file('dist/index.test.js'),
      file('dist/index.js.map', '{"version":3}'),
    ]);
    expect(problems).toEqual([
      '@gatehousejs/express: src/index.ts: sources and tests are not published',
      '@gatehousejs/express: dist/index.test.js: a test file',
      '@gatehousejs/express: dist/index.js.map: a source map (the build makes none: tsup.shared.ts)',
      '@gatehousejs/express: dist/index.js.map: dist/ holds built JavaScript and declarations only',
    ]);
  });

  it('refuse secret files and text holding keys or tokens', () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg'.repeat(2)}\n-----END PRIVATE KEY-----`;
    const problems = tarballProblems('@gatehousejs/core', [
      ...clean,
      file('.env', 'GATEHOUSE_SIGNING_KEY=x'),
      file('keys/server.pem', 'x'),
      file('.npmrc', '//registry/:_authToken=x'),
      file('docs/demo.private.jwk.json', '{}'),
      file('dist/chunk.js', `const key = ${JSON.stringify(pem)};`),
      file('docs/keys.md', '{ "kty": "EC", "d": "q1Zcg6rIWzJbqcE0yEJx3X-nCkb6zRB0oHdZf5BzVRU" }'),
      file('README.md', 'token npm_abcdefghijklmnopqrstuvwxyz0123456789'),
    ]);
    expect(problems).toEqual([
      '@gatehousejs/core: .env: an environment file (secrets)',
      '@gatehousejs/core: keys/server.pem: a key or keystore file',
      '@gatehousejs/core: .npmrc: an .npmrc (registry credentials)',
      '@gatehousejs/core: docs/demo.private.jwk.json: a private JWK file',
      '@gatehousejs/core: dist/chunk.js: contains a PEM private key',
      '@gatehousejs/core: docs/keys.md: contains a private JWK member "d"',
      '@gatehousejs/core: README.md: contains an npm access token',
    ]);
  });

  it('accept code that merely names key formats', () => {
    const code = "if (pem.startsWith('-----BEGIN PRIVATE KEY-----')) return importPKCS8(pem, alg);";
    expect(tarballProblems('@gatehousejs/core', [...clean, file('dist/keys.js', code)])).toEqual([]);
  });

  it('refuse a tarball over its size budget', () => {
    const big = { path: 'dist/index.js', text: '', bytes: 2 * 1024 * 1024 };
    expect(tarballProblems('@gatehousejs/express', [big])).toEqual([
      `@gatehousejs/express: ${2 * 1024 * 1024} bytes unpacked, over its budget of ${1024 * 1024}`,
    ]);
  });
});
