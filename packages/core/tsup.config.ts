import { packageBuild } from '../../tsup.shared';

// `node`: the /node entry uses Node built-ins; a test keeps them out of the main entry.
// `adapter`: the fast paths for server adapters, runtime-neutral like the main entry.
// `engine`: the storage contract and the helpers engines share, runtime-neutral too.
// `protect`: operations and resource servers; `ui`: the pages and own sign-in; runtime-neutral.
// `testing`: the storage conformance kit, apart so that no engine's runtime import loads it.
export default packageBuild({
  index: 'src/index.ts',
  adapter: 'src/adapter/index.ts',
  node: 'src/node/index.ts',
  engine: 'src/engine/index.ts',
  protect: 'src/protect/index.ts',
  ui: 'src/ui/index.ts',
  testing: 'src/testing/index.ts',
  // The `gatehouse` command (package.json `bin`); its ESM file is the one run.
  cli: 'src/cli/main.ts',
});
