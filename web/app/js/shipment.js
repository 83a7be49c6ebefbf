// The shipment page.

import { h } from './dom.js';

export function mount(main, route) {
  main.append(h('section', { id: 'shipment', 'data-id': route.id }, h('h1', {}, 'Shipment')));
}
