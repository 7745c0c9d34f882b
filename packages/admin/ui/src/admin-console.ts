import { ApiClient } from './api.js';
import { ConsoleContext, messageOf, type Page } from './console-context.js';
import { h, replace } from './dom.js';
import { auditPage } from './pages/audit-page.js';
import { loginPage } from './pages/login-page.js';
import { serviceListPage } from './pages/service-list-page.js';
import { servicePage } from './pages/service-page.js';

/** Where the hash points: `#/` (services, `?q=`), `#/services/<interface>`, `#/audit`. */
export type Route = { readonly page: 'services'; readonly query: string } | { readonly page: 'service'; readonly service: string } | { readonly page: 'audit' };

/** Reads a location hash. Unknown hashes are the service list. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const [pathname = '/', search = ''] = path.split('?', 2);
  const service = /^\/services\/(.+)$/.exec(pathname);
  if (service?.[1] !== undefined) {
    try {
      return { page: 'service', service: decodeURIComponent(service[1]) };
    } catch {
      return { page: 'services', query: '' };
    }
  }
  if (pathname === '/audit') return { page: 'audit' };
  return { page: 'services', query: new URLSearchParams(search).get('q') ?? '' };
}

/**
 * The console in the browser: the session check, the login page, the navigation and the page of the current
 * hash; each page is disposed (its refresh timers stopped) when another replaces it.
 *
 * @example
 * ```ts
 * new AdminConsole(document.getElementById('app')!).start();
 * ```
 */
export class AdminConsole {
  private readonly context: ConsoleContext;
  private readonly outlet = h('div', { class: 'outlet' });
  private readonly nav: HTMLElement;
  private page: Page | undefined;
  private authenticated = false;

  constructor(private readonly root: HTMLElement) {
    this.context = new ConsoleContext(new ApiClient(() => this.showLogin()));
    this.nav = h(
      'header',
      { class: 'top' },
      h('a', { class: 'brand', href: '#/' }, 'Weft admin'),
      h('nav', { 'aria-label': 'Main' }, h('a', { href: '#/' }, 'Services'), h('a', { href: '#/audit' }, 'Audit')),
      h('button', { type: 'button', class: 'logout', onclick: () => void this.logout() }, 'Log out'),
    );
    window.addEventListener('hashchange', () => {
      if (this.authenticated) this.route();
    });
  }

  /** Checks the session, then shows the login page or the page of the hash. */
  async start(): Promise<void> {
    try {
      this.authenticated = await this.context.api.session();
    } catch (error) {
      replace(this.root, h('main', {}, h('h1', {}, 'Weft admin'), h('p', { class: 'error', role: 'alert' }, messageOf(error))));
      return;
    }
    if (this.authenticated) this.route();
    else this.showLogin();
  }

  /** Shows the login page (the session is gone). */
  showLogin(): void {
    this.authenticated = false;
    this.show(
      loginPage(this.context, () => {
        this.authenticated = true;
        this.route();
      }),
      false,
    );
  }

  private async logout(): Promise<void> {
    try {
      await this.context.api.logout();
    } finally {
      this.showLogin();
    }
  }

  private route(): void {
    const route = parseRoute(location.hash);
    if (route.page === 'service') this.show(servicePage(this.context, route.service), true);
    else if (route.page === 'audit') this.show(auditPage(this.context), true);
    else this.show(serviceListPage(this.context, route.query), true);
  }

  private show(page: Page, withNav: boolean): void {
    this.page?.dispose();
    this.page = page;
    document.title = `${page.title} · Weft admin`;
    this.context.announce('');
    replace(this.outlet, page.element);
    for (const link of this.nav.querySelectorAll('nav a')) {
      const here = (link.getAttribute('href') === '#/audit') === (parseRoute(location.hash).page === 'audit');
      if (here) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    replace(this.root, withNav ? this.nav : null, this.context.announcer, this.outlet, this.context.dialog.element);
  }
}
