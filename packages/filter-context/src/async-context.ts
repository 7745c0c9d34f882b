import type { URL } from '@weft/core';

import { ContextKeys } from './context-keys.js';

/**
 * Whether a URL opts into `context.async` (the context carried across awaits), read once per URL object: an
 * override replaces the URL, so the next call reads the new value.
 * @internal
 */
export class AsyncContextFlag {
  private readonly byUrl = new WeakMap<URL, boolean>();
  private lastUrl: URL | undefined = undefined;
  private last = false;

  of(url: URL): boolean {
    if (url === this.lastUrl) return this.last;
    let flag = this.byUrl.get(url);
    if (flag === undefined) {
      flag = url.getParameter(ContextKeys.ASYNC, false);
      this.byUrl.set(url, flag);
    }
    this.lastUrl = url;
    this.last = flag;
    return flag;
  }
}
