// Sign in with an API key: the key is tried on the API before it is kept.

import { get, APIError } from './api.js';
import { h } from './dom.js';

export function mount(main, _route, { signedIn }) {
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', required: true, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'api-key-hint' });
  const error = h('p', { id: 'signin-error', class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const left = sessionStorage.getItem('boxwatch.signout');
  sessionStorage.removeItem('boxwatch.signout');
  if (left) error.textContent = left;

  const form = h('form', { id: 'signin', class: 'card narrow', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'api-key' }, 'API key'),
      input,
      h('span', { class: 'hint', id: 'api-key-hint' }, 'Starts with bw_. boxwatch serve --demo prints one; an operator makes others with boxwatch apikey. It is kept for this browser tab only.')),
    error,
    h('div', { class: 'actions' }, button));

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const key = input.value.trim();
    if (!key) {
      error.textContent = 'Enter an API key.';
      input.focus();
      return;
    }
    button.disabled = true;
    error.textContent = '';
    try {
      await get('/v2/tracking_requests?page[size]=1', { key });
      signedIn(key);
    } catch (err) {
      error.textContent = err instanceof APIError && err.status === 401
        ? 'That API key was not accepted. Check it and try again.'
        : `Could not sign in: ${err.message}`;
      input.select();
      input.focus();
    } finally {
      button.disabled = false;
    }
  });

  main.append(
    h('h1', {}, 'Sign in'),
    h('p', { class: 'lead' }, 'Track containers, bills of lading and bookings, follow them on the map, and manage webhooks.'),
    form);
  input.focus();
}
