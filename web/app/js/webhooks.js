// Webhooks: add, pause, resume and delete them, and for the chosen one its delivery log with a
// redeliver button per notification and one for every failed notification since a time.

import { get, request, query, Included, APIError } from './api.js';
import { h, replace, announce, table, field } from './dom.js';
import { time, badge, humanize } from './format.js';
import { pager } from './pager.js';

const DEFAULT_EVENTS = ['tracking_request.succeeded', 'tracking_request.failed'];
const PAGE_SIZE = 25;

export function mount(main) {
  const state = { selected: null, confirming: null, last: '', lastDeliveries: '', page: 1, webhooks: [] };
  const form = addForm(() => {
    state.last = '';
    view.refresh();
  });
  const listError = h('p', { id: 'webhooks-error', class: 'error', role: 'alert' });
  let list = h('div', { class: 'table-wrap' }, h('p', { class: 'muted' }, 'Loading…'));
  let deliveries = h('section', { id: 'delivery-log', hidden: true });

  main.append(
    h('h1', {}, 'Webhooks'),
    h('p', { class: 'lead' }, 'boxwatch posts each event to the URLs below, signed with the webhook’s secret, and retries failed deliveries.'),
    h('section', { class: 'card', 'aria-labelledby': 'webhook-add-title' },
      h('h2', { id: 'webhook-add-title' }, 'Add a webhook'),
      form.el),
    h('section', { 'aria-labelledby': 'webhooks-title' },
      h('h2', { id: 'webhooks-title' }, 'Your webhooks'),
      listError, list),
    deliveries);

  async function act(fn, done) {
    listError.textContent = '';
    try {
      await fn();
      if (done) announce(done);
    } catch (err) {
      listError.textContent = err.message;
    }
    state.last = '';
    await view.refresh();
  }

  function row(w) {
    const a = w.attributes;
    const id = w.id;
    const selected = state.selected === id;
    let actions;
    if (state.confirming === id) {
      actions = h('div', { class: 'actions tight' },
        h('span', {}, 'Delete this webhook and its delivery log?'),
        h('button', { type: 'button', class: 'danger small confirm-delete', 'data-focus': `confirm-${id}`, onclick: () => {
          state.confirming = null;
          if (state.selected === id) state.selected = null;
          act(() => request('DELETE', `/v2/webhooks/${encodeURIComponent(id)}`), `Webhook ${a.url} deleted.`);
        } }, 'Yes, delete'),
        h('button', { type: 'button', class: 'secondary small cancel-delete', onclick: () => { state.confirming = null; state.last = ''; view.refresh(); } }, 'Cancel'));
    } else {
      actions = h('div', { class: 'actions tight' },
        h('button', { type: 'button', class: 'secondary small select', 'data-focus': `select-${id}`, 'aria-pressed': String(selected), onclick: () => {
          state.selected = selected ? null : id;
          state.page = 1;
          state.last = '';
          state.lastDeliveries = '';
          view.refresh();
        } }, 'Deliveries'),
        h('button', { type: 'button', class: 'secondary small toggle', 'data-focus': `toggle-${id}`, onclick: () => act(
          () => request('PATCH', `/v2/webhooks/${encodeURIComponent(id)}`, { body: { data: { type: 'webhook', attributes: { active: !a.active } } } }),
          a.active ? 'Webhook paused.' : 'Webhook active again.') }, a.active ? 'Pause' : 'Resume'),
        h('button', { type: 'button', class: 'danger small delete', 'data-focus': `delete-${id}`, onclick: () => {
          state.confirming = id;
          state.last = '';
          view.refresh().then(() => document.querySelector(`[data-focus="confirm-${CSS.escape(id)}"]`)?.focus());
        } }, 'Delete'));
    }
    return h('tr', { 'data-id': id, class: selected ? 'selected' : null },
      h('td', { class: 'mono url' }, a.url),
      h('td', {}, h('span', { title: a.events.join(', ') }, `${a.events.length} event${a.events.length === 1 ? '' : 's'}`),
        h('div', { class: 'muted small' }, a.events.slice(0, 3).join(', ') + (a.events.length > 3 ? ', …' : ''))),
      h('td', {}, a.active ? badge('succeeded', 'Active') : badge('inactive', 'Paused'),
        a.deactivated_reason ? h('div', { class: 'small' }, humanize(a.deactivated_reason)) : null),
      h('td', {}, time(a.created_at)),
      h('td', {}, actions));
  }

  const view = {
    async refresh() {
      const doc = await get('/v2/webhooks?page[size]=100', { fresh: true });
      state.webhooks = doc.data;
      if (state.selected && !doc.data.some((w) => w.id === state.selected)) state.selected = null;
      const text = JSON.stringify(doc.data) + state.selected + state.confirming;
      if (text !== state.last) {
        state.last = text;
        const next = table('webhooks', 'Webhooks', [
          { label: 'URL' }, { label: 'Events' }, { label: 'Status' }, { label: 'Created' }, { label: 'Actions' },
        ], doc.data.map(row), 'No webhooks yet. Add one above to be told of every change.');
        replace(list, next);
        list = next;
      }
      const hook = doc.data.find((w) => w.id === state.selected);
      if (!hook) {
        if (!deliveries.hidden) {
          const empty = h('section', { id: 'delivery-log', hidden: true });
          replace(deliveries, empty);
          deliveries = empty;
          state.lastDeliveries = '';
        }
        return;
      }
      const notes = await get(`/v2/webhook_notifications${query({
        'filter[webhook_id]': hook.id, include: 'webhook_notification_logs', 'page[number]': state.page, 'page[size]': PAGE_SIZE,
      })}`, { fresh: true });
      if (state.selected !== hook.id) return;
      const dtext = JSON.stringify(notes) + JSON.stringify(hook.attributes);
      if (dtext === state.lastDeliveries) return;
      state.lastDeliveries = dtext;
      const next = deliveryLog(hook, notes, state, () => { state.lastDeliveries = ''; view.refresh(); });
      replace(deliveries, next);
      deliveries = next;
    },
    unmount() {},
  };
  return view;
}

// deliveryLog is the chosen webhook's notifications, newest first, each with its latest attempt.
function deliveryLog(hook, doc, state, refresh) {
  const inc = new Included(doc);
  const error = h('p', { id: 'deliveries-error', class: 'error', role: 'alert' });
  const redeliver = async (button, path, done) => {
    error.textContent = '';
    button.disabled = true;
    try {
      const res = await request('POST', path);
      announce(done(res));
    } catch (err) {
      error.textContent = err instanceof APIError && err.status === 409 ? `${err.message} Resume the webhook first.` : err.message;
    } finally {
      button.disabled = false;
    }
    refresh();
  };

  const rows = doc.data.map((n) => {
    const a = n.attributes;
    const logs = inc.all(n, 'webhook_notification_logs').sort((x, y) => y.attributes.attempted_at.localeCompare(x.attributes.attempted_at));
    const lastLog = logs[0]?.attributes;
    let outcome = h('span', { class: 'none' }, 'not sent yet');
    if (lastLog) {
      outcome = [
        lastLog.status_code ? `HTTP ${lastLog.status_code}` : 'no response',
        lastLog.error ? ` · ${lastLog.error}` : '',
        ` · ${lastLog.latency_ms} ms · `, time(lastLog.attempted_at),
      ];
    }
    return h('tr', { 'data-id': n.id, 'data-status': a.delivery_status },
      h('td', { class: 'mono' }, a.event),
      h('td', {}, badge(a.delivery_status, humanize(a.delivery_status))),
      h('td', {}, String(a.attempts)),
      h('td', { class: 'details' }, outcome),
      h('td', {}, a.next_attempt_at ? time(a.next_attempt_at) : h('span', { class: 'none' }, '—')),
      h('td', {}, time(a.created_at)),
      h('td', {}, h('button', {
        type: 'button', class: 'secondary small redeliver', 'data-focus': `redeliver-${n.id}`,
        'aria-label': `Redeliver ${a.event} of ${new Date(a.created_at).toISOString()}`,
        onclick: (ev) => redeliver(ev.currentTarget, `/v2/webhook_notifications/${encodeURIComponent(n.id)}/redeliver`, () => `${a.event} queued for redelivery.`),
      }, 'Redeliver')));
  });

  const since = h('input', { id: 'redeliver-since', type: 'datetime-local', value: localInput(new Date(Date.now() - 24 * 3600 * 1000)) });
  const sinceButton = h('button', { type: 'button', id: 'redeliver-failed', class: 'secondary', onclick: (ev) => {
    const t = new Date(since.value);
    if (Number.isNaN(t.getTime())) {
      error.textContent = 'Enter the time to redeliver from.';
      return;
    }
    redeliver(ev.currentTarget, `/v2/webhooks/${encodeURIComponent(hook.id)}/redeliver${query({ since: t.toISOString().replace(/\.\d{3}Z$/, 'Z') })}`,
      (res) => `${res?.meta?.redelivered ?? 0} failed notification(s) queued for redelivery.`);
  } }, 'Redeliver failed since');

  return h('section', { id: 'delivery-log', class: 'card', 'aria-labelledby': 'deliveries-title' },
    h('h2', { id: 'deliveries-title' }, 'Deliveries to ', h('span', { class: 'mono' }, hook.attributes.url)),
    h('details', { class: 'secret' }, h('summary', {}, 'Signing secret'),
      h('p', {}, h('code', {}, hook.attributes.secret ?? ''), ' Receivers check each delivery’s signature with it.')),
    h('div', { class: 'filters' }, field('Failed notifications since', since), h('div', {}, sinceButton)),
    error,
    table('deliveries', `Notifications sent to ${hook.attributes.url}, newest first`, [
      { label: 'Event' }, { label: 'Status' }, { label: 'Attempts' }, { label: 'Last attempt' }, { label: 'Next attempt' }, { label: 'Created' }, { label: 'Action' },
    ], rows, 'No notifications yet: they appear when a tracked shipment changes.'),
    pager(doc.meta?.pagination, state.page, 'notifications', (p) => { state.page = p; refresh(); }));
}

// localInput formats a time for a datetime-local input, in the browser's time zone.
function localInput(d) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// addForm is the form that registers a webhook, with the events to send from the API's list.
function addForm(added) {
  const url = h('input', { id: 'webhook-url', name: 'url', type: 'url', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://example.com/boxwatch' });
  const events = h('div', { class: 'event-groups' }, h('p', { class: 'muted' }, 'Loading the events…'));
  const error = h('p', { id: 'webhook-error', class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit' }, 'Add webhook');
  const el = h('form', { id: 'webhook-add', novalidate: true },
    field('URL', url, 'Where boxwatch posts the events: https, reachable from the server.'),
    events, error,
    h('div', { class: 'actions' }, submit));

  get('/v2/webhooks/events').then((doc) => {
    // The first category (tracking requests) is open; the others fold away until wanted.
    events.replaceChildren(...doc.data.map((cat, i) => {
      const group = h('fieldset', {},
        h('legend', { class: i === 0 ? null : 'visually-hidden' }, cat.attributes.name),
        h('div', { class: 'checks' }, cat.attributes.events.map((e) => {
          const id = `event-${e.name.replace(/[^a-z0-9]+/gi, '-')}`;
          return h('label', { class: 'check', for: id, title: e.description },
            h('input', { type: 'checkbox', id, name: 'events', value: e.name, checked: DEFAULT_EVENTS.includes(e.name) }),
            h('span', {}, e.name));
        })));
      return i === 0 ? group : h('details', {}, h('summary', {}, `${cat.attributes.name} (${cat.attributes.events.length})`), group);
    }));
  }).catch((err) => { events.replaceChildren(h('p', { class: 'error' }, `Could not load the events: ${err.message}`)); });

  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    const chosen = [...el.querySelectorAll('input[name=events]:checked')].map((i) => i.value);
    if (!url.value.trim()) {
      error.textContent = 'Enter the URL to send events to.';
      url.focus();
      return;
    }
    if (chosen.length === 0) {
      error.textContent = 'Choose at least one event.';
      return;
    }
    submit.disabled = true;
    try {
      await request('POST', '/v2/webhooks', { body: { data: { type: 'webhook', attributes: { url: url.value.trim(), events: chosen, active: true } } } });
      announce(`Webhook ${url.value.trim()} added.`);
      url.value = '';
      added();
    } catch (err) {
      error.textContent = err.message;
      url.focus();
    } finally {
      submit.disabled = false;
    }
  });
  return { el };
}
