// Webhooks.

import { h } from './dom.js';

export function mount(main) {
  main.append(h('h1', {}, 'Webhooks'));
}
