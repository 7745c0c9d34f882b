import { weftProject } from '../../vitest.shared.ts';

export default weftProject('filter-auth');
