// Tracking requests: the form that tracks a number (the shipping line inferred as the user types)
// and the list of requests with their status.

import { get, request, query, relatedID, APIError } from './api.js';
import { h, replace, announce, table, field } from './dom.js';
import { time, badge, requestType, failedReason, percent } from './format.js';
import { pager } from './pager.js';

const INFER_DELAY_MS = 300;
const PAGE_SIZE = 25;

// The API's number_type, as a tracking request's request_type.
const requestTypes = { container: 'container', bill_of_lading: 'bill_of_lading', booking: 'booking_number' };

let lines = null; // the shipping lines, read once per page load

async function shippingLines() {
  if (!lines) {
    const doc = await get('/v2/shipping_lines');
    lines = doc.data.map((l) => l.attributes).sort((a, b) => a.name.localeCompare(b.name));
  }
  return lines;
}

export function mount(main) {
  const state = { page: 1, status: '', last: '' };
  const form = trackForm(() => {
    state.page = 1;
    view.refresh();
  });
  const status = h('select', { id: 'tr-filter-status' },
    h('option', { value: '' }, 'Any status'),
    ['pending', 'awaiting_manifest', 'created', 'failed', 'tracking_stopped'].map((s) => h('option', { value: s }, badge(s).textContent)));
  let list = h('div', { class: 'table-wrap' }, h('p', { class: 'muted' }, 'Loading…'));
  let pages = h('div');

  status.addEventListener('change', () => {
    state.status = status.value;
    state.page = 1;
    view.refresh();
  });

  main.append(
    h('h1', {}, 'Tracking requests'),
    h('section', { class: 'card', 'aria-labelledby': 'track-title' },
      h('h2', { id: 'track-title' }, 'Track a number'),
      form.el),
    h('section', { 'aria-labelledby': 'tr-list-title' },
      h('div', { class: 'section-head' },
        h('h2', { id: 'tr-list-title' }, 'Requests'),
        h('div', { class: 'filters' }, field('Status', status))),
      list, pages));

  const view = {
    async refresh() {
      const doc = await get(`/v2/tracking_requests${query({ 'page[number]': state.page, 'page[size]': PAGE_SIZE, 'filter[status]': state.status })}`, { fresh: true });
      const text = JSON.stringify(doc.data) + JSON.stringify(doc.meta);
      if (text === state.last) return;
      state.last = text;
      const next = table('tracking-requests', 'Tracking requests, newest first', [
        { label: 'Number' }, { label: 'Type' }, { label: 'Line' }, { label: 'Status' }, { label: 'Details' }, { label: 'Created' }, { label: 'Shipment' },
      ], doc.data.map(row), state.status ? 'No tracking request has this status.' : 'No tracking requests yet. Track a number above.');
      replace(list, next);
      list = next;
      const nextPages = pager(doc.meta?.pagination, state.page, 'tracking requests', (p) => { state.page = p; view.refresh(); });
      replace(pages, nextPages);
      pages = nextPages;
    },
    unmount() {
      form.stop();
    },
  };
  return view;
}

function row(tr) {
  const a = tr.attributes;
  const shipmentID = relatedID(tr, 'tracked_object');
  let details = '';
  let statusCell = badge(a.status);
  if (a.status === 'pending' && a.is_retrying) {
    statusCell = badge('retrying', `Retrying${a.retry_count ? ` (retry ${a.retry_count})` : ''}`);
    details = a.failed_reason ? `Last attempt: ${failedReason(a.failed_reason)}` : 'The last attempt failed; boxwatch tries again.';
  } else if (a.failed_reason) {
    details = failedReason(a.failed_reason);
  } else if (a.status === 'pending') {
    details = 'Looking the number up with the shipping line.';
  } else if (a.status === 'awaiting_manifest') {
    details = 'Known to the line, not yet published; checked again until it is.';
  }
  return h('tr', { 'data-id': tr.id, 'data-status': a.status },
    h('td', { class: 'mono' }, a.request_number),
    h('td', {}, requestType(a.request_type)),
    h('td', { class: 'mono' }, a.scac),
    h('td', {}, statusCell),
    h('td', { class: 'details' }, details),
    h('td', {}, time(a.created_at)),
    h('td', {}, shipmentID
      ? h('a', { href: `#/shipments/${encodeURIComponent(shipmentID)}`, 'data-focus': `tr-${tr.id}` }, 'View shipment')
      : h('span', { class: 'none' }, '—')));
}

// trackForm is the form that creates a tracking request. As the number is typed it asks
// infer_number: an auto_select decision picks the line, needs_confirmation lists the candidates
// and requires a choice, no_prediction asks for the line.
function trackForm(created) {
  const number = h('input', { id: 'track-number', name: 'number', required: true, autocomplete: 'off', spellcheck: 'false', autocapitalize: 'characters', placeholder: 'e.g. MAEU123456784' });
  const scac = h('select', { id: 'track-scac', name: 'scac', required: true }, h('option', { value: '' }, 'Choose a shipping line'));
  const type = h('select', { id: 'track-type', name: 'type' },
    h('option', { value: 'bill_of_lading' }, 'Bill of lading'),
    h('option', { value: 'booking_number' }, 'Booking'),
    h('option', { value: 'container' }, 'Container'));
  const inferStatus = h('div', { id: 'infer-status', class: 'infer', role: 'status', 'aria-live': 'polite' });
  const error = h('p', { id: 'track-error', class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit' }, 'Track');
  const el = h('form', { id: 'track', class: 'track-form', novalidate: true },
    h('div', { class: 'grid' },
      field('Number', number, 'Container, bill of lading or booking number'),
      field('Shipping line', scac),
      field('Number type', type)),
    inferStatus, error,
    h('div', { class: 'actions' }, submit));

  shippingLines().then((ls) => {
    for (const l of ls) scac.append(h('option', { value: l.scac }, `${l.name} (${l.scac})`));
  }).catch((err) => { error.textContent = `Could not load the shipping lines: ${err.message}`; });

  let timer = 0;
  let seq = 0;
  let needsChoice = false;
  const form = { el, stop: () => clearTimeout(timer) };

  function ensureOption(code, name) {
    if (![...scac.options].some((o) => o.value === code)) scac.append(h('option', { value: code }, `${name} (${code})`));
  }

  function choose(code) {
    scac.value = code;
    needsChoice = false;
    for (const b of inferStatus.querySelectorAll('button[data-scac]')) b.setAttribute('aria-pressed', String(b.dataset.scac === code));
  }

  async function infer() {
    const value = number.value.trim();
    const mine = ++seq;
    if (value.length < 4) {
      inferStatus.replaceChildren();
      needsChoice = false;
      return;
    }
    inferStatus.replaceChildren(h('span', { class: 'muted' }, 'Recognising the number…'));
    let doc;
    try {
      doc = await request('POST', '/v2/tracking_requests/infer_number', { body: { number: value }, json: true });
    } catch (err) {
      if (mine === seq) inferStatus.replaceChildren(h('span', { class: 'muted' }, `Could not recognise the number: ${err.message}`));
      return;
    }
    if (mine !== seq) return; // a later keystroke has asked again
    const a = doc.data.attributes;
    const sl = a.shipping_line ?? {};
    inferStatus.dataset.decision = sl.decision ?? '';
    if (requestTypes[a.number_type]) type.value = requestTypes[a.number_type];
    const what = requestType(requestTypes[a.number_type] ?? a.number_type);
    const validity = a.validation?.is_valid === false ? ` ${a.validation.reason ?? 'It does not look valid.'}` : '';
    if (sl.decision === 'auto_select' && sl.selected) {
      ensureOption(sl.selected.scac, sl.selected.name);
      choose(sl.selected.scac);
      inferStatus.replaceChildren(
        h('span', { class: 'decision ok' }, `${what} of ${sl.selected.name} (${sl.selected.scac})`),
        ` selected automatically, confidence ${percent(sl.selected.confidence)}.${validity}`);
    } else if (sl.decision === 'needs_confirmation' && sl.candidates?.length) {
      needsChoice = true;
      scac.value = '';
      inferStatus.replaceChildren(
        h('span', { class: 'decision ask' }, `${what}: which shipping line issued it?`),
        validity,
        h('div', { class: 'candidates', role: 'group', 'aria-label': 'Likely shipping lines' },
          sl.candidates.map((c) => {
            ensureOption(c.scac, c.name);
            return h('button', { type: 'button', class: 'secondary', 'data-scac': c.scac, 'aria-pressed': 'false', onclick: () => choose(c.scac) },
              `${c.name} (${c.scac}) · ${percent(c.confidence)}`);
          })));
    } else {
      needsChoice = false;
      inferStatus.replaceChildren(h('span', { class: 'decision none' }, `${what}: the shipping line could not be told from the number.`), ' Choose it from the list.', validity);
    }
  }

  number.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(infer, INFER_DELAY_MS);
  });
  scac.addEventListener('change', () => choose(scac.value));

  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    const value = number.value.trim();
    if (!value) {
      error.textContent = 'Enter the number to track.';
      number.focus();
      return;
    }
    if (!scac.value) {
      error.textContent = needsChoice ? 'Choose the shipping line among the suggestions, or from the list.' : 'Choose the shipping line.';
      (inferStatus.querySelector('button[data-scac]') ?? scac).focus();
      return;
    }
    submit.disabled = true;
    try {
      await request('POST', '/v2/tracking_requests', {
        body: { data: { type: 'tracking_request', attributes: { request_type: type.value, request_number: value, scac: scac.value } } },
      });
      announce(`Tracking request for ${value} created.`);
      number.value = '';
      choose('');
      inferStatus.replaceChildren(h('span', { class: 'decision ok' }, `Tracking request for ${value} created; it is listed below.`));
      created();
      number.focus();
    } catch (err) {
      error.textContent = err instanceof APIError ? err.message : String(err);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
