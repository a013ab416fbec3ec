import { fileURLToPath } from 'node:url';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/** Source entry points, so tests run against `src/` without a prior build. */
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const sourceAliases = {
  '@gatehousejs/core/adapter': source('./packages/core/src/adapter/index.ts'),
  '@gatehousejs/core/engine': source('./packages/core/src/engine/index.ts'),
  '@gatehousejs/core/protect': source('./packages/core/src/protect/index.ts'),
  '@gatehousejs/core/ui': source('./packages/core/src/ui/index.ts'),
  '@gatehousejs/core/node': source('./packages/core/src/node/index.ts'),
  '@gatehousejs/core/testing': source('./packages/core/src/testing/index.ts'),
  '@gatehousejs/core': source('./packages/core/src/index.ts'),
  '@gatehousejs/client': source('./packages/client/src/index.ts'),
  '@gatehousejs/express': source('./packages/express/src/index.ts'),
  '@gatehousejs/koa': source('./packages/koa/src/index.ts'),
  '@gatehousejs/fastify': source('./packages/fastify/src/index.ts'),
  '@gatehousejs/hono': source('./packages/hono/src/index.ts'),
  '@gatehousejs/next': source('./packages/next/src/index.ts'),
  '@gatehousejs/redis': source('./packages/redis/src/index.ts'),
  '@gatehousejs/postgres': source('./packages/postgres/src/index.ts'),
  '@gatehousejs/demo': source('./examples/demo/src/index.ts'),
};

/** The one vitest project shape every package uses. */
export function gatehouseProject(name: string, extra: UserWorkspaceConfig['test'] = {}): UserWorkspaceConfig {
  return defineProject({
    resolve: { alias: sourceAliases },
    test: { name, include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 20_000, ...extra },
  });
}
