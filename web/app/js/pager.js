// Page links under a list, from the API's meta.pagination.

import { h } from './dom.js';

// pager returns "Previous / page N of M / Next" controls, or an empty element for one page.
export function pager(pagination, page, noun, go) {
  const last = pagination?.last ?? 1;
  const records = pagination?.records ?? 0;
  if (last <= 1) {
    return h('div', { class: 'pager' }, records > 0 ? h('span', { class: 'muted' }, `${records} ${noun}`) : null);
  }
  return h('nav', { class: 'pager', 'aria-label': `Pages of ${noun}` },
    h('button', { type: 'button', class: 'secondary', disabled: page <= 1, 'data-focus': 'prev', onclick: () => go(page - 1) }, 'Previous'),
    h('span', {}, `Page ${page} of ${last} · ${records} ${noun}`),
    h('button', { type: 'button', class: 'secondary', disabled: page >= last, 'data-focus': 'next', onclick: () => go(page + 1) }, 'Next'));
}
