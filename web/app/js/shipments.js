// Shipments: search (bill, booking, container or reference number, through the API's q) and the
// tracking filter, newest first.

import { get, query, Included } from './api.js';
import { h, replace, table, field } from './dom.js';
import { time, badge } from './format.js';
import { pager } from './pager.js';

const SEARCH_DELAY_MS = 300;
const PAGE_SIZE = 25;

export function mount(main) {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const state = { page: 1, q: params.get('q') ?? '', stopped: '', last: '' };
  const search = h('input', { id: 'shipment-search', type: 'search', value: state.q, autocomplete: 'off', spellcheck: 'false', placeholder: 'Bill, booking, container or reference number' });
  const stopped = h('select', { id: 'shipment-filter-tracking' },
    h('option', { value: '' }, 'All shipments'),
    h('option', { value: 'false' }, 'Being tracked'),
    h('option', { value: 'true' }, 'Tracking stopped'));
  let list = h('div', { class: 'table-wrap' }, h('p', { class: 'muted' }, 'Loading…'));
  let pages = h('div');
  let timer = 0;

  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.q = search.value.trim();
      state.page = 1;
      view.refresh();
    }, SEARCH_DELAY_MS);
  });
  stopped.addEventListener('change', () => {
    state.stopped = stopped.value;
    state.page = 1;
    view.refresh();
  });

  main.append(
    h('h1', {}, 'Shipments'),
    h('div', { role: 'search', class: 'filters card' },
      field('Search by bill, booking, container or reference number', search),
      field('Tracking', stopped)),
    list, pages);

  const view = {
    async refresh() {
      const asked = { ...state };
      const doc = await get(`/v2/shipments${query({
        include: 'containers', q: asked.q, 'filter[tracking_stopped]': asked.stopped, 'page[number]': asked.page, 'page[size]': PAGE_SIZE,
      })}`, { fresh: true });
      if (asked.q !== state.q || asked.stopped !== state.stopped || asked.page !== state.page) return; // the search changed meanwhile
      const text = JSON.stringify(doc);
      if (text === state.last) return;
      state.last = text;
      const inc = new Included(doc);
      const next = table('shipments', 'Shipments, newest first', [
        { label: 'Bill of lading' }, { label: 'Line' }, { label: 'From' }, { label: 'To' }, { label: 'ETA / arrived' }, { label: 'Vessel' }, { label: 'Containers' }, { label: 'Tracking' },
      ], doc.data.map((s) => row(s, inc)), state.q || state.stopped ? 'No shipment matches.' : 'No shipments yet: track a number on the Tracking requests page.');
      replace(list, next);
      list = next;
      const nextPages = pager(doc.meta?.pagination, state.page, 'shipments', (p) => { state.page = p; view.refresh(); });
      replace(pages, nextPages);
      pages = nextPages;
    },
    unmount() {
      clearTimeout(timer);
    },
  };
  return view;
}

function row(s, inc) {
  const a = s.attributes;
  const containers = inc.all(s, 'containers').map((c) => c.attributes.number);
  const number = a.bill_of_lading_number || a.booking_number || a.normalized_number;
  const arrived = a.pod_ata_at;
  return h('tr', { 'data-id': s.id },
    h('td', {}, h('a', { href: `#/shipments/${encodeURIComponent(s.id)}`, class: 'mono strong', 'data-focus': `s-${s.id}` }, number),
      a.ref_numbers?.length ? h('div', { class: 'muted small' }, `Ref. ${a.ref_numbers.join(', ')}`) : null),
    h('td', {}, a.shipping_line_short_name || a.shipping_line_scac),
    h('td', {}, place(a.port_of_lading_name, a.port_of_lading_locode)),
    h('td', {}, place(a.port_of_discharge_name, a.port_of_discharge_locode)),
    h('td', {}, arrived ? ['Arrived ', time(arrived, a.pod_timezone)] : time(a.pod_eta_at, a.pod_timezone)),
    h('td', {}, a.pod_vessel_name ? [a.pod_vessel_name, a.pod_voyage_number ? h('span', { class: 'muted' }, ` ${a.pod_voyage_number}`) : null] : h('span', { class: 'none' }, '—')),
    h('td', { class: 'mono' }, containers.length ? containers.join(', ') : h('span', { class: 'none' }, 'none yet')),
    h('td', {}, a.line_tracking_stopped_at ? badge('tracking_stopped', 'Stopped') : badge('created', 'Tracked')));
}

function place(name, locode) {
  if (!name && !locode) return h('span', { class: 'none' }, '—');
  return [name ?? '', locode ? h('span', { class: 'muted mono' }, ` ${locode}`) : null];
}
