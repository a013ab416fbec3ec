import { conformanceSuite } from '../src/suite.js';
import { TARGETS } from '../src/targets.js';

conformanceSuite(TARGETS.koa);
