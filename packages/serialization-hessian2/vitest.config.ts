import { weftProject } from '../../vitest.shared.ts';

export default weftProject('serialization-hessian2');
