import { packageBuild } from '../../tsup.shared';

// `cli`: the `gatehouse-conformance` command (package.json `bin`); its ESM file is the one run.
export default packageBuild({ index: 'src/index.ts', cli: 'src/cli.ts' });
