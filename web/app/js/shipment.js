// The shipment page: summary, ETAs, containers, and for the chosen container its terminal data,
// event timeline and map.

import { get, query, Included, APIError } from './api.js';
import { h, replace } from './dom.js';
import { time, badge, eventName, humanize, containerStatus } from './format.js';
import { JourneyMap } from './map.js';

const include = 'containers,pod_terminal,port_of_lading,port_of_discharge,destination,destination_terminal';

export function mount(main, route) {
  const id = route.id;
  const state = { container: null, last: '', lastEvents: '', lastMap: '', drawnFor: null };
  let head = h('div', {}, h('h1', {}, 'Shipment'), h('p', { class: 'muted' }, 'Loading…'));
  let summary = h('div');
  let etas = h('section', { id: 'etas', class: 'card', 'aria-labelledby': 'etas-title' }, h('h2', { id: 'etas-title' }, 'Arrival and departure'));
  let containers = h('section', { id: 'containers', class: 'card', 'aria-labelledby': 'containers-title' }, h('h2', { id: 'containers-title' }, 'Containers'));
  let terminal = h('section', { id: 'terminal', class: 'card', 'aria-labelledby': 'terminal-title' }, h('h2', { id: 'terminal-title' }, 'At the terminal'));
  let inland = h('div', { id: 'inland' });
  let timeline = h('ol', { id: 'timeline', class: 'timeline' });
  let next = h('div');
  const mapEl = h('div', { id: 'map', role: 'region', 'aria-label': 'Map of the container’s journey' });
  const journey = new JourneyMap(mapEl);

  const section = h('section', { id: 'shipment', 'data-id': id },
    head, summary, etas, containers,
    h('div', { class: 'layout' },
      h('div', {},
        h('section', { class: 'card', 'aria-labelledby': 'map-title' },
          h('h2', { id: 'map-title' }, 'Journey map'),
          mapEl,
          h('ul', { class: 'legend', 'aria-label': 'Legend' },
            h('li', {}, h('span', { class: 'swatch port', 'aria-hidden': 'true' }), 'Port'),
            h('li', {}, h('span', { class: 'swatch', 'aria-hidden': 'true' }), 'Sailed (lighter where estimated)'),
            h('li', {}, h('span', { class: 'swatch dashed', 'aria-hidden': 'true' }), 'Still to sail (estimated)'),
            h('li', {}, h('span', { class: 'swatch vessel', 'aria-hidden': 'true' }), 'Vessel, pointing to its heading'),
            h('li', {}, h('span', { class: 'swatch inland', 'aria-hidden': 'true' }), 'Inland leg by rail (straight line; solid once arrived)'),
            h('li', {}, h('span', { class: 'swatch destination', 'aria-hidden': 'true' }), 'Inland destination'),
            h('li', {}, 'Land: Natural Earth')),
          next)),
      h('div', {},
        terminal,
        inland,
        h('section', { class: 'card', 'aria-labelledby': 'timeline-title' },
          h('h2', { id: 'timeline-title' }, 'Events'),
          timeline))));
  main.append(h('p', {}, h('a', { href: '#/shipments' }, '← All shipments')), section);

  function swap(prev, nextEl) {
    replace(prev, nextEl);
    return nextEl;
  }

  async function refreshContainer(c, inc, shipmentDoc) {
    const [events, map] = await Promise.all([
      get(`/v2/containers/${encodeURIComponent(c.id)}/transport_events${query({ include: 'location,vessel,terminal', 'page[size]': 100 })}`, { fresh: true }),
      get(`/v2/containers/${encodeURIComponent(c.id)}/map_geojson`, { fresh: true }).catch((err) => err),
    ]);
    if (state.container !== c.id) return; // another container was chosen meanwhile
    terminal = swap(terminal, terminalCard(c, inc, shipmentDoc.data));
    inland = swap(inland, inlandCard(c, inc, shipmentDoc.data));
    const evText = JSON.stringify(events.data);
    if (evText !== state.lastEvents) {
      state.lastEvents = evText;
      timeline = swap(timeline, timelineList(events));
    }
    if (map instanceof Error) {
      journey.fail(map instanceof APIError && map.status === 403 ? map.message : `The map could not be loaded: ${map.message}`);
      next = swap(next, h('div'));
      return;
    }
    const mapText = JSON.stringify(map);
    const fit = state.drawnFor !== c.id;
    if (mapText !== state.lastMap || fit) {
      state.lastMap = mapText;
      state.drawnFor = c.id;
      await journey.draw(map, { fit });
      next = swap(next, nextPort(map));
    }
  }

  const view = {
    async refresh() {
      let doc;
      try {
        doc = await get(`/v2/shipments/${encodeURIComponent(id)}?include=${include}`, { fresh: true });
      } catch (err) {
        if (err instanceof APIError && err.status === 404) {
          head = swap(head, h('div', {}, h('h1', {}, 'Shipment not found'), h('p', {}, 'This account has no shipment with this id.')));
          return;
        }
        throw err;
      }
      const inc = new Included(doc);
      const list = inc.all(doc.data, 'containers');
      if (!state.container || !list.some((c) => c.id === state.container)) state.container = list[0]?.id ?? null;
      const text = JSON.stringify(doc) + state.container;
      if (text !== state.last) {
        state.last = text;
        head = swap(head, heading(doc.data));
        document.title = `${head.querySelector('h1').textContent} · boxwatch`;
        summary = swap(summary, summaryCard(doc.data, inc));
        etas = swap(etas, etasCard(doc.data));
        containers = swap(containers, containerPicker(list, state.container, (cid) => {
          if (cid === state.container) return;
          state.container = cid;
          mapEl.dataset.state = 'loading'; // until this container's map is drawn
          state.last = '';
          state.lastEvents = '';
          view.refresh();
        }));
      }
      const c = list.find((x) => x.id === state.container);
      if (c) {
        await refreshContainer(c, inc, doc);
      } else {
        terminal = swap(terminal, h('section', { id: 'terminal', class: 'card' }, h('h2', {}, 'At the terminal'), h('p', { class: 'muted' }, 'No container yet: the shipping line assigns one when the empty is picked up.')));
        inland = swap(inland, h('div', { id: 'inland' }));
        timeline = swap(timeline, h('ol', { id: 'timeline', class: 'timeline' }));
        journey.fail('No container yet, so no map.');
      }
    },
    unmount() {
      journey.remove();
    },
  };
  return view;
}

function heading(s) {
  const a = s.attributes;
  const number = a.bill_of_lading_number || a.booking_number || a.normalized_number;
  return h('div', { class: 'section-head' },
    h('div', {},
      h('h1', {}, `Shipment ${number}`),
      h('p', { class: 'lead' }, `${a.shipping_line_name ?? a.shipping_line_scac} · ${a.port_of_lading_name ?? '?'} to ${a.port_of_discharge_name ?? '?'}${a.destination_name ? ` then ${a.destination_name}` : ''}`)),
    a.line_tracking_stopped_at ? badge('tracking_stopped', 'Tracking stopped') : badge('created', 'Tracked'));
}

function item(label, ...value) {
  return h('div', {}, h('dt', {}, label), h('dd', {}, value.length && value.some((v) => v !== null && v !== '' && v !== undefined) ? value : h('span', { class: 'none' }, '—')));
}

function summaryCard(s, inc) {
  const a = s.attributes;
  const terminal = inc.of(s, 'pod_terminal');
  return h('div', { class: 'card' },
    h('dl', { class: 'summary' },
      item('Bill of lading', h('span', { class: 'mono' }, a.bill_of_lading_number ?? '')),
      item('Booking', a.booking_number ? h('span', { class: 'mono' }, a.booking_number) : null),
      item('Shipping line', `${a.shipping_line_name ?? ''} (${a.shipping_line_scac})`),
      item('Vessel (to the port of discharge)', a.pod_vessel_name ? `${a.pod_vessel_name}${a.pod_vessel_imo ? `, IMO ${a.pod_vessel_imo}` : ''}${a.pod_voyage_number ? `, voyage ${a.pod_voyage_number}` : ''}` : null),
      item('Terminal at the port of discharge', terminal?.attributes.name ?? null),
      item('References', a.ref_numbers?.length ? a.ref_numbers.join(', ') : null),
      item('Last checked with the line', time(a.line_tracking_last_succeeded_at)),
      a.line_tracking_stopped_at ? item('Tracking stopped', time(a.line_tracking_stopped_at), a.line_tracking_stopped_reason ? ` (${humanize(a.line_tracking_stopped_reason)})` : '') : null));
}

function etasCard(s) {
  const a = s.attributes;
  const rows = [
    ['Departure from ' + (a.port_of_lading_name ?? 'the port of lading'), [
      ['Planned', time(a.pol_etd_at, a.pol_timezone)],
      a.pol_original_etd_at && a.pol_original_etd_at !== a.pol_etd_at ? ['First planned', time(a.pol_original_etd_at, a.pol_timezone)] : null,
      ['Departed', time(a.pol_atd_at, a.pol_timezone)],
    ]],
    ['Arrival at ' + (a.port_of_discharge_name ?? 'the port of discharge'), [
      ['Carrier’s ETA', time(a.pod_eta_at, a.pod_timezone)],
      a.pod_original_eta_at && a.pod_original_eta_at !== a.pod_eta_at ? ['First ETA', time(a.pod_original_eta_at, a.pod_timezone)] : null,
      a.pod_predicted_arrival_at ? ['boxwatch prediction', time(a.pod_predicted_arrival_at, a.pod_timezone)] : null,
      ['Arrived', time(a.pod_ata_at, a.pod_timezone)],
    ]],
    a.destination_name ? ['Arrival at ' + a.destination_name, [
      ['ETA', time(a.destination_eta_at, a.destination_timezone)],
      ['Arrived', time(a.destination_ata_at, a.destination_timezone)],
    ]] : null,
  ].filter(Boolean);
  return h('section', { id: 'etas', class: 'card', 'aria-labelledby': 'etas-title' },
    h('h2', { id: 'etas-title' }, 'Arrival and departure'),
    h('div', { class: 'summary' },
      rows.map(([title, pairs]) => h('div', {},
        h('h3', {}, title),
        h('dl', {}, pairs.filter(Boolean).map(([k, v]) => h('div', { class: 'pair' }, h('dt', {}, k), h('dd', {}, v))))))),
    a.pod_predicted_arrival_at ? null : h('p', { class: 'hint' }, 'boxwatch predicts the arrival from the vessel’s track while it sails the last leg; the prediction shows here then.'));
}

function containerPicker(list, selected, choose) {
  return h('section', { id: 'containers', class: 'card', 'aria-labelledby': 'containers-title' },
    h('h2', { id: 'containers-title' }, `Containers (${list.length})`),
    list.length === 0
      ? h('p', { class: 'muted' }, 'No container yet: the shipping line assigns one when the empty is picked up.')
      : h('ul', { class: 'container-list' }, list.map((c) => {
        const a = c.attributes;
        return h('li', {}, h('button', {
          type: 'button', class: 'secondary', 'data-container-id': c.id, 'data-focus': `c-${c.id}`,
          'aria-pressed': String(c.id === selected), onclick: () => choose(c.id),
        },
        h('span', { class: 'mono' }, a.number),
        h('span', { class: 'muted small' }, [a.equipment_length ? `${a.equipment_length}′` : null, a.equipment_type, containerStatus(a.current_status)].filter(Boolean).join(' · '))));
      })));
}

function terminalCard(c, inc, shipment) {
  const a = c.attributes;
  const term = inc.of(c, 'pod_terminal') ?? inc.of(shipment, 'pod_terminal');
  const available = a.available_for_pickup === true ? 'Yes' : a.available_for_pickup === false ? 'No' : (a.availability_known ? 'Unknown' : 'Not reported yet');
  const lfd = a.pickup_lfd ?? a.import_deadlines?.pickup_lfd_terminal ?? a.import_deadlines?.pickup_lfd_line ?? a.import_deadlines?.pickup_lfd_rail;
  const deadlines = a.import_deadlines ?? {};
  const holds = a.holds_at_pod_terminal ?? [];
  const fees = a.fees_at_pod_terminal ?? [];
  return h('section', { id: 'terminal', class: 'card', 'aria-labelledby': 'terminal-title' },
    h('h2', { id: 'terminal-title' }, `At the terminal · ${a.number}`),
    h('dl', { class: 'summary' },
      item('Terminal', term?.attributes.name ?? null),
      item('Status', h('span', { 'data-status': a.current_status }, containerStatus(a.current_status))),
      item('Available for pickup', available),
      item('Last free day', lfd ? time(lfd, a.pod_timezone) : null),
      deadlines.pickup_lfd_terminal ? item('Terminal’s last free day', time(deadlines.pickup_lfd_terminal, a.pod_timezone)) : null,
      deadlines.pickup_lfd_line ? item('Line’s last free day', time(deadlines.pickup_lfd_line, a.pod_timezone)) : null,
      deadlines.pickup_lfd_rail ? item('Rail’s last free day', time(deadlines.pickup_lfd_rail, a.pod_timezone)) : null,
      item('Holds', holds.length
        ? h('ul', { class: 'holds', id: 'holds' }, holds.map((x) => h('li', { 'data-hold': x.name, 'data-status': x.status }, `${humanize(x.name)}: ${x.status}${x.description ? ` (${x.description})` : ''}`)))
        : (a.availability_known ? 'None' : null)),
      item('Fees', fees.length
        ? h('ul', { class: 'holds', id: 'fees' }, fees.map((f) => h('li', { 'data-fee': f.type }, `${humanize(f.type)}: ${formatMoney(f.amount, f.currency_code)}`)))
        : (a.availability_known ? 'None' : null)),
      a.location_at_pod_terminal ? item('Location in the terminal', a.location_at_pod_terminal) : null,
      a.pickup_appointment_at ? item('Pickup appointment', time(a.pickup_appointment_at, a.pod_timezone)) : null,
      item('Discharged', time(a.pod_discharged_at, a.pod_timezone)),
      item('Picked up', time(a.pod_full_out_at, a.pod_timezone))));
}

// inlandCard is the container's leg past the port of discharge, when the carrier reports one: where
// it goes, its status in words and the rail times; an empty placeholder otherwise.
function inlandCard(c, inc, shipment) {
  const a = c.attributes;
  const s = shipment.attributes;
  const dest = inc.of(shipment, 'destination');
  const ramp = inc.of(shipment, 'destination_terminal');
  const name = s.destination_name ?? dest?.attributes.name;
  if (!name && !a.pod_rail_loaded_at && !a.ind_eta_at) return h('div', { id: 'inland' });
  const tz = a.final_destination_timezone ?? s.destination_timezone;
  const railway = [a.pod_rail_carrier_scac, a.ind_rail_carrier_scac].filter(Boolean);
  return h('section', { id: 'inland', class: 'card', 'aria-labelledby': 'inland-title' },
    h('h2', { id: 'inland-title' }, `Inland · ${a.number}`),
    h('dl', { class: 'summary' },
      item('Inland destination', name ? h('span', { class: 'destination-name' }, name, s.destination_locode ? ` (${s.destination_locode})` : '') : null),
      ramp ? item('Rail terminal there', ramp.attributes.name ?? null) : null,
      item('Status', h('span', { 'data-status': a.current_status }, containerStatus(a.current_status))),
      railway.length ? item('Railway', [...new Set(railway)].join(', ')) : null,
      item('Loaded on rail', time(a.pod_rail_loaded_at, a.pod_timezone)),
      item('Rail departed', time(a.pod_rail_departed_at, a.pod_timezone)),
      item('ETA at the destination', time(a.ind_eta_at ?? s.destination_eta_at, tz)),
      item('Arrived at the destination', time(a.ind_ata_at ?? s.destination_ata_at, tz)),
      a.ind_rail_unloaded_at ? item('Unloaded from rail', time(a.ind_rail_unloaded_at, tz)) : null,
      a.final_destination_full_out_at ? item('Left the destination full', time(a.final_destination_full_out_at, tz)) : null));
}

function formatMoney(amount, currency) {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency ?? ''}`;
  }
}

function timelineList(doc) {
  const inc = new Included(doc);
  const events = [...doc.data].sort((x, y) => x.attributes.timestamp.localeCompare(y.attributes.timestamp));
  if (events.length === 0) return h('ol', { id: 'timeline', class: 'timeline' }, h('li', { class: 'muted' }, 'No events yet.'));
  return h('ol', { id: 'timeline', class: 'timeline' }, events.map((e) => {
    const a = e.attributes;
    const place = inc.of(e, 'location');
    const vessel = inc.of(e, 'vessel');
    const terminal = inc.of(e, 'terminal');
    const where = [terminal?.attributes.name, place ? `${place.attributes.name}${place.attributes.code ? ` (${place.attributes.code})` : ''}` : a.location_locode].filter(Boolean).join(', ');
    return h('li', { 'data-event': a.event },
      h('span', { class: 'event-name' }, eventName(a.event)),
      h('span', { class: 'event-meta' }, time(a.timestamp, a.timezone), where ? ` · ${where}` : '',
        vessel ? ` · ${vessel.attributes.name}${a.voyage_number ? ` ${a.voyage_number}` : ''}` : ''));
  }));
}

// nextPort is what the map says of the leg under way: the next port, the carrier's ETA there and
// boxwatch's prediction from the vessel's track.
function nextPort(fc) {
  const v = fc.features.find((f) => f.properties?.feature_type === 'current_vessel')?.properties;
  if (!v) return h('div');
  return h('dl', { class: 'summary next-port' },
    item('Vessel', `${v.vessel_name}${v.voyage_number ? ` · ${v.voyage_number}` : ''}`),
    item('Position of', time(v.vessel_location_timestamp)),
    item(`Next port${v.arrival_port_label ? ` (${v.arrival_port_label})` : ''}`, v.arrival_port_name ?? null),
    item('Carrier’s ETA there', time(v.arrival_port_eta, v.arrival_port_time_zone)),
    item('boxwatch prediction', v.predicted_arrival_at ? time(v.predicted_arrival_at, v.arrival_port_time_zone) : null),
    item('Distance to go', typeof v.distance_to_go_nm === 'number' ? `${Math.round(v.distance_to_go_nm).toLocaleString()} nm` : null));
}
