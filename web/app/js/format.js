// How values read on the page.

import { h } from './dom.js';

const formats = new Map();

function formatter(timeZone) {
  const key = timeZone || 'UTC';
  if (!formats.has(key)) {
    const opts = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' };
    let f;
    try {
      f = new Intl.DateTimeFormat(undefined, { ...opts, timeZone: key });
    } catch {
      f = new Intl.DateTimeFormat(undefined, { ...opts, timeZone: 'UTC' }); // a zone this browser does not know
    }
    formats.set(key, f);
  }
  return formats.get(key);
}

// time shows an instant in a place's time zone (UTC when it has none) inside a <time> element, or
// a dash for null.
export function time(iso, timeZone) {
  if (!iso) return h('span', { class: 'none' }, '—');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return h('time', { datetime: iso, title: d.toISOString() }, formatter(timeZone).format(d));
}

// clock is a short local time of day, for "updated at".
export function clock(d = new Date()) {
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function humanize(s) {
  if (!s) return '';
  const t = String(s).replace(/[_.]/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

// containerStatus says a container's current_status in words.
const containerStatuses = {
  new: 'New: not yet at the port of lading',
  on_ship: 'On the vessel',
  grounded: 'Discharged, in the terminal',
  available: 'Available for pickup',
  not_available: 'Not available for pickup',
  awaiting_inland_transfer: 'Awaiting inland transfer: discharged, waiting for the train',
  on_rail: 'On rail to the inland destination',
  off_dock: 'Moved off dock',
  picked_up: 'Picked up',
  delivered: 'Delivered',
  dropped: 'Dropped',
  loaded: 'Loaded',
  empty_returned: 'Empty returned',
};
export function containerStatus(s) {
  return containerStatuses[s] ?? humanize(s);
}

const statusText = {
  pending: 'Pending',
  awaiting_manifest: 'Awaiting manifest',
  created: 'Created',
  failed: 'Failed',
  tracking_stopped: 'Tracking stopped',
};

// badge shows a status with a colour and words (the colour is never the only sign).
export function badge(status, text = statusText[status] ?? humanize(status)) {
  return h('span', { class: `badge badge-${String(status).replace(/[^a-z_]/g, '')}` }, text);
}

const requestTypes = { bill_of_lading: 'Bill of lading', booking_number: 'Booking', container: 'Container' };
export function requestType(t) {
  return requestTypes[t] ?? humanize(t);
}

const failedReasons = {
  not_found: 'The shipping line does not know this number.',
  invalid_number: 'The number does not fit any of the shipping line’s formats.',
  shipping_line_unreachable: 'The shipping line could not be reached.',
  retries_exhausted: 'The shipping line could not be reached after several attempts.',
  duplicate: 'The number is already tracked.',
  expired: 'The shipping line did not publish the shipment in time.',
  data_unavailable: 'The shipping line has no data for this number yet.',
  unrecognized_response: 'The shipping line answered in a way boxwatch does not understand.',
  internal_processing_error: 'boxwatch failed to process the shipping line’s answer.',
};
export function failedReason(r) {
  return failedReasons[r] ?? humanize(r);
}

const eventNames = {
  'container.transport.empty_out': 'Empty picked up',
  'container.transport.full_in': 'Gated in full',
  'container.transport.vessel_loaded': 'Loaded on vessel',
  'container.transport.vessel_departed': 'Vessel departed',
  'container.transport.transshipment_arrived': 'Arrived at transshipment port',
  'container.transport.transshipment_discharged': 'Discharged at transshipment port',
  'container.transport.transshipment_loaded': 'Loaded at transshipment port',
  'container.transport.transshipment_departed': 'Departed transshipment port',
  'container.transport.vessel_arrived': 'Vessel arrived',
  'container.transport.vessel_berthed': 'Vessel berthed',
  'container.transport.vessel_discharged': 'Discharged',
  'container.transport.full_out': 'Picked up full',
  'container.transport.empty_in': 'Empty returned',
  'container.transport.available': 'Available for pickup',
  'container.transport.rail_loaded': 'Loaded on rail',
  'container.transport.rail_departed': 'Rail departed',
  'container.transport.rail_arrived': 'Rail arrived',
  'container.transport.rail_unloaded': 'Unloaded from rail',
  'container.transport.arrived_at_inland_destination': 'Arrived at inland destination',
};
export function eventName(e) {
  return eventNames[e] ?? humanize(String(e).replace(/^container\.transport\./, ''));
}

export function percent(x) {
  return `${Math.round(x * 100)} %`;
}
