import { weftProject } from '../../vitest.shared.ts';

export default weftProject('cluster', { globalSetup: ['test/support/build.ts'] });
