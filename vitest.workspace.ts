// vitest 3.2.x reads this file: one project per package and example, each with its own vitest.config.ts.
export default ['packages/*/vitest.config.ts', 'examples/*/vitest.config.ts', 'tests/*/vitest.config.ts'];
