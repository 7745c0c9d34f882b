import { HttpError } from '../http/http-error.js';
import type { ActionApi } from './action-api.js';
import type { ApiRequest } from './api-request.js';
import { ReadApi } from './read-api.js';

const ENDPOINTS =
  'GET /api/services, GET /api/services/<interface>, GET /api/services/<interface>/metrics, GET /api/audit, ' +
  'POST|DELETE /api/services/<interface>/mock, POST /api/services/<interface>/mock/preview, POST /api/services/<interface>/override, ' +
  'POST /api/services/<interface>/providers/disable|enable, POST|DELETE /api/services/<interface>/routes, POST /api/services/<interface>/breaker';

/**
 * Dispatches an authenticated API request to its endpoint.
 *
 * @remarks Unknown paths answer 404 listing the endpoints; a known path with the wrong method answers 405.
 * @example
 * ```ts
 * const answer = await route(request, reads, actions);
 * ```
 * @throws {@link HttpError}
 */
export async function routeApi(request: ApiRequest, reads: ReadApi, actions: ActionApi): Promise<unknown> {
  const [first, name, ...rest] = request.segments;
  const method = request.method;
  const path = `/api/${request.segments.join('/')}`;
  const wrong = (allowed: string) => new HttpError(405, `${method} ${path}: use ${allowed}`);
  if (first === 'audit' && name === undefined) {
    ReadApi.onlyGet(request, path);
    return reads.auditEntries();
  }
  if (first === 'services') {
    if (name === undefined || name === '') {
      ReadApi.onlyGet(request, path);
      return reads.services(request);
    }
    const tail = rest.join('/');
    switch (tail) {
      case '':
        ReadApi.onlyGet(request, path);
        return reads.service(request, name);
      case 'metrics':
        ReadApi.onlyGet(request, path);
        return reads.serviceMetrics(name);
      case 'mock':
        if (method === 'POST') return actions.setMock(request, name);
        if (method === 'DELETE') return actions.removeMock(request, name);
        throw wrong('POST or DELETE');
      case 'mock/preview':
        if (method === 'POST') return actions.previewMock(request, name);
        throw wrong('POST');
      case 'override':
        if (method === 'POST') return actions.setOverride(request, name);
        throw wrong('POST');
      case 'providers/disable':
      case 'providers/enable':
        if (method === 'POST') return actions.setProviderEnabled(request, name, tail === 'providers/enable');
        throw wrong('POST');
      case 'routes':
        if (method === 'POST') return actions.setRoute(request, name);
        if (method === 'DELETE') return actions.removeRoute(request, name);
        throw wrong('POST or DELETE');
      case 'breaker':
        if (method === 'POST') return actions.setBreaker(request, name);
        throw wrong('POST');
      default:
        break;
    }
  }
  throw new HttpError(404, `no API endpoint ${method} ${path.slice(0, 200)} (endpoints: ${ENDPOINTS})`);
}
