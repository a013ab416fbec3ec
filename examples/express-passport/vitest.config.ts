import { gatehouseProject } from '../../vitest.shared';

export default gatehouseProject('example-express-passport');
