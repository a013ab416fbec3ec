import { fileURLToPath } from 'node:url';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/** Source entry points, so tests run against `src/` without a prior build. */
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const sourceAliases = {
  '@gatehouse/core/node': source('./packages/core/src/node/index.ts'),
  '@gatehouse/core/testing': source('./packages/core/src/testing/index.ts'),
  '@gatehouse/core': source('./packages/core/src/index.ts'),
  '@gatehouse/client': source('./packages/client/src/index.ts'),
  '@gatehouse/express': source('./packages/express/src/index.ts'),
  '@gatehouse/koa': source('./packages/koa/src/index.ts'),
  '@gatehouse/hono': source('./packages/hono/src/index.ts'),
  '@gatehouse/next': source('./packages/next/src/index.ts'),
  '@gatehouse/redis': source('./packages/redis/src/index.ts'),
  '@gatehouse/postgres': source('./packages/postgres/src/index.ts'),
  '@gatehouse/demo': source('./examples/demo/src/index.ts'),
};

/** The one vitest project shape every package uses. */
export function gatehouseProject(name: string, extra: UserWorkspaceConfig['test'] = {}): UserWorkspaceConfig {
  return defineProject({
    resolve: { alias: sourceAliases },
    test: { name, include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 20_000, ...extra },
  });
}
