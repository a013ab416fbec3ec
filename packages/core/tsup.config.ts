import { packageBuild } from '../../tsup.shared';

// `node`: the /node entry uses Node built-ins; a test keeps them out of the main entry.
export default packageBuild({
  index: 'src/index.ts',
  node: 'src/node/index.ts',
  testing: 'src/testing/index.ts',
});
