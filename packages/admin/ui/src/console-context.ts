import { ApiError, type ApiClient } from './api.js';
import { h, Ids } from './dom.js';
import { PlanDialog } from './plan-dialog.js';
import type { PlanAnswer } from './types.js';

/** What a page is: its element, and what to stop when it is left. */
export interface Page {
  readonly element: HTMLElement;
  readonly title: string;
  dispose(): void;
}

/**
 * What every page shares: the API client, id generation, the confirmation dialog and the announcements region.
 *
 * @remarks `act` is the one way an action is taken: ask for the plan, show it, send it again with `confirm: true`
 * only when the operator applies it. Errors land in the form's own alert (the parser's message, verbatim).
 * @example
 * ```ts
 * await context.act(errorBox, (confirm) => api.action(service, 'POST', 'mock', { mock, confirm }), refresh);
 * ```
 */
export class ConsoleContext {
  readonly ids = new Ids();
  readonly dialog = new PlanDialog();
  readonly announcer: HTMLElement = h('p', { class: 'announcer', role: 'status', 'aria-live': 'polite' });

  private hideTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly api: ApiClient) {}

  /** Says `text` in the page's status region (cleared after 8 s). */
  announce(text: string): void {
    this.announcer.textContent = text;
    clearTimeout(this.hideTimer);
    if (text !== '') this.hideTimer = setTimeout(() => (this.announcer.textContent = ''), 8000);
  }

  /**
   * Plans, confirms and applies one action. `errors` shows a refusal; `done` runs after it was applied.
   * Resolves `true` when applied.
   */
  async act(errors: HTMLElement, send: (confirm: boolean) => Promise<PlanAnswer>, done: () => void): Promise<boolean> {
    errors.textContent = '';
    let planned: PlanAnswer;
    try {
      planned = await send(false);
    } catch (error) {
      errors.textContent = messageOf(error);
      return false;
    }
    if (!(await this.dialog.ask(planned.plan))) {
      this.announce(`Cancelled: ${planned.plan.summary}`);
      return false;
    }
    try {
      const applied = await send(true);
      this.announce(`Applied: ${applied.plan.summary}`);
    } catch (error) {
      errors.textContent = messageOf(error);
      return false;
    }
    done();
    return true;
  }
}

/** The text of an error for people. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
