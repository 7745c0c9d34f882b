import { HttpError } from '../http/http-error.js';
import type { ApiRequest } from './api-request.js';

/** Placeholder: the action endpoints. @internal */
export class ActionApi {
  constructor(readonly context: unknown) {}
  private todo(): never {
    throw new HttpError(501, 'not implemented yet');
  }
  async setMock(_r: ApiRequest, _s: string): Promise<unknown> { return this.todo(); }
  async removeMock(_r: ApiRequest, _s: string): Promise<unknown> { return this.todo(); }
  async previewMock(_r: ApiRequest, _s: string): Promise<unknown> { return this.todo(); }
  async setOverride(_r: ApiRequest, _s: string): Promise<unknown> { return this.todo(); }
  async setProviderEnabled(_r: ApiRequest, _s: string, _e: boolean): Promise<unknown> { return this.todo(); }
  async setRoute(_r: ApiRequest, _s: string): Promise<unknown> { return this.todo(); }
  async removeRoute(_r: ApiRequest, _s: string): Promise<unknown> { return this.todo(); }
  async setBreaker(_r: ApiRequest, _s: string): Promise<unknown> { return this.todo(); }
}
