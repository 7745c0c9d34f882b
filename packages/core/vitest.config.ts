import { weftProject } from '../../vitest.shared.ts';

export default weftProject('core', { globalSetup: ['test/support/install-fixtures.ts'] });
