import type { ConsoleContext, Page } from '../console-context.js';
import { messageOf } from '../console-context.js';
import { h } from '../dom.js';

/**
 * The login page: one field, the console's token (printed by `weft admin`, or `WEFT_ADMIN_TOKEN`).
 *
 * @example
 * ```ts
 * show(loginPage(context, () => router.start()));
 * ```
 */
export function loginPage(context: ConsoleContext, onLoggedIn: () => void): Page {
  const id = context.ids.id('token');
  const input = h('input', { id, name: 'token', type: 'password', autocomplete: 'current-password', required: true, spellcheck: 'false' });
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Log in');
  const form = h(
    'form',
    {
      'aria-labelledby': 'login-title',
      onsubmit: (event) => {
        event.preventDefault();
        error.textContent = '';
        button.disabled = true;
        context.api
          .login(input.value)
          .then(() => onLoggedIn())
          .catch((failure: unknown) => {
            error.textContent = messageOf(failure);
            input.select();
          })
          .finally(() => (button.disabled = false));
      },
    },
    h('h1', { id: 'login-title' }, 'Weft admin'),
    h('p', { class: 'hint' }, 'The token is printed by ', h('code', {}, 'weft admin'), ' when it starts (or set with WEFT_ADMIN_TOKEN).'),
    h('label', { for: id }, 'Token'),
    input,
    error,
    button,
  );
  queueMicrotask(() => input.focus());
  return { element: h('main', { class: 'login' }, form), title: 'Log in', dispose: () => undefined };
}
