// The container map: MapLibre over Natural Earth land, both served by this binary (no tiles, no
// CDN), drawing a container's GET /v2/containers/{id}/map_geojson.
//
// Layers: bw-ports (port points), bw-path (the path sailed, past_vessel_locations; lighter where
// the server estimated it because no AIS position was stored), bw-legs-estimated (dashed: the
// rest of the current leg, estimated_partial_leg, and the legs not started, estimated_full_legs)
// bw-vessel (an arrow turned to the vessel's heading; a dot when the heading is unknown), and the
// leg past the port of discharge: bw-inland (inland_leg, a straight segment in its own colour,
// dashed until it is past) and bw-destination (inland_destination, a purple point).

import { h } from './dom.js';
import { landFromTopology, unwrap, bounds } from './geo.js';
import { time } from './format.js';

const LIB = '../../vendor/maplibre-gl/maplibre-gl.mjs';
const LAND = new URL('../../vendor/world-atlas/land-50m.json', import.meta.url);

const colours = {
  water: '#cfe0ec',
  land: '#f4f1e8',
  path: '#0a58a8',
  estimated: '#c2410c',
  port: '#0b2f4f',
  vessel: '#c2410c',
  inland: '#7e22ce',
};

const empty = { type: 'FeatureCollection', features: [] };

let libPromise = null;
let landPromise = null;

function library() {
  libPromise ??= import(LIB);
  return libPromise;
}

function land() {
  landPromise ??= fetch(LAND).then((r) => {
    if (!r.ok) throw new Error(`land: ${r.status}`);
    return r.json();
  }).then((topology) => landFromTopology(topology));
  return landPromise;
}

// arrow draws the vessel icon pointing north; MapLibre turns it by the heading.
function vesselIcons() {
  const size = 48;
  const draw = (shape) => {
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = colours.vessel;
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 4;
    ctx.lineJoin = 'round';
    ctx.beginPath();
    shape(ctx);
    ctx.closePath();
    ctx.stroke();
    ctx.fill();
    return ctx.getImageData(0, 0, size, size);
  };
  return {
    arrow: draw((c) => {
      c.moveTo(24, 3);
      c.lineTo(41, 43);
      c.lineTo(24, 34);
      c.lineTo(7, 43);
    }),
    dot: draw((c) => c.arc(24, 24, 13, 0, 2 * Math.PI)),
  };
}

function journeyLayers() {
  const kind = ['get', 'feature_type'];
  return [
    {
      id: 'bw-path', type: 'line', source: 'journey',
      filter: ['==', kind, 'past_vessel_locations'],
      layout: { 'line-join': 'round', 'line-cap': 'round' },
      paint: { 'line-color': colours.path, 'line-width': 3.5, 'line-opacity': ['case', ['==', ['get', 'estimated'], true], 0.55, 1] },
    },
    {
      id: 'bw-legs-estimated', type: 'line', source: 'journey',
      filter: ['in', kind, ['literal', ['estimated_partial_leg', 'estimated_full_legs']]],
      layout: { 'line-join': 'round' },
      paint: { 'line-color': colours.estimated, 'line-width': 2.5, 'line-dasharray': [2, 2] },
    },
    {
      id: 'bw-inland', type: 'line', source: 'journey',
      filter: ['all', ['==', kind, 'inland_leg'], ['!=', ['get', 'progress'], 'past']],
      layout: { 'line-join': 'round' },
      paint: { 'line-color': colours.inland, 'line-width': 3, 'line-dasharray': [1, 1.5] },
    },
    {
      id: 'bw-inland-past', type: 'line', source: 'journey',
      filter: ['all', ['==', kind, 'inland_leg'], ['==', ['get', 'progress'], 'past']],
      layout: { 'line-join': 'round', 'line-cap': 'round' },
      paint: { 'line-color': colours.inland, 'line-width': 3.5 },
    },
    {
      id: 'bw-destination', type: 'circle', source: 'journey',
      filter: ['==', kind, 'inland_destination'],
      paint: { 'circle-radius': 6, 'circle-color': colours.inland, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
    },
    {
      id: 'bw-ports', type: 'circle', source: 'journey',
      filter: ['==', kind, 'port'],
      paint: { 'circle-radius': 6, 'circle-color': colours.port, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
    },
    {
      id: 'bw-vessel', type: 'symbol', source: 'journey',
      filter: ['==', kind, 'current_vessel'],
      layout: {
        'icon-image': ['case', ['==', ['typeof', ['get', 'vessel_location_heading']], 'number'], 'bw-vessel-arrow', 'bw-vessel-dot'],
        'icon-rotate': ['coalesce', ['get', 'vessel_location_heading'], 0],
        'icon-rotation-alignment': 'map',
        'icon-allow-overlap': true,
        'icon-ignore-placement': true,
      },
    },
  ];
}

// JourneyMap draws map_geojson documents into an element, which carries data-state: "loading",
// "drawn" once a document is on the map, "error" (with a visible message) when it cannot be.
export class JourneyMap {
  constructor(el) {
    this.el = el;
    this.map = null;
    this.markers = [];
    this.message = h('p', { class: 'map-message', role: 'status' });
    this.message.hidden = true;
    el.append(this.message);
    el.dataset.state = 'loading';
    this.ready = this.#create();
    this.ready.catch(() => {}); // draw reports the failure; this only keeps it from the console
  }

  async #create() {
    const lib = await library();
    if (this.removed) throw new Error('the page was left');
    this.lib = lib;
    const map = new lib.Map({
      container: this.el,
      style: {
        version: 8,
        sources: { land: { type: 'geojson', data: empty }, journey: { type: 'geojson', data: empty } },
        layers: [
          { id: 'bw-water', type: 'background', paint: { 'background-color': colours.water } },
          { id: 'bw-land', type: 'fill', source: 'land', paint: { 'fill-color': colours.land } },
        ],
      },
      center: [0, 20],
      zoom: 1,
      attributionControl: false,
      dragRotate: false,
      pitchWithRotate: false,
      cooperativeGestures: false,
    });
    this.map = map;
    window.boxwatch.map = map;
    map.addControl(new lib.NavigationControl({ showCompass: false }), 'top-right');
    map.touchZoomRotate.disableRotation();
    await new Promise((resolve, reject) => {
      map.once('load', resolve);
      map.once('error', (e) => reject(e.error ?? new Error('the map could not start')));
    });
    const icons = vesselIcons();
    map.addImage('bw-vessel-arrow', icons.arrow, { pixelRatio: 2 });
    map.addImage('bw-vessel-dot', icons.dot, { pixelRatio: 2 });
    for (const layer of journeyLayers()) map.addLayer(layer);
    this.#popups(lib, map);
    // Until the user moves the map, it keeps the journey in view when its size changes (a phone
    // turned sideways, a window resized).
    map.on('movestart', (e) => { if (e.originalEvent) this.moved = true; });
    map.on('resize', () => { if (!this.moved) this.#fit(); });
    land().then((fc) => map.getSource('land')?.setData(fc)).catch(() => this.#say('The land could not be loaded; the route is drawn on water only.'));
    return map;
  }

  #popups(lib, map) {
    for (const layer of ['bw-ports', 'bw-destination', 'bw-vessel']) {
      map.on('mouseenter', layer, () => { map.getCanvas().style.cursor = 'pointer'; });
      map.on('mouseleave', layer, () => { map.getCanvas().style.cursor = ''; });
      map.on('click', layer, (e) => {
        const f = e.features?.[0];
        if (!f) return;
        new lib.Popup({ closeButton: true, maxWidth: '18rem' })
          .setLngLat(f.geometry.coordinates)
          .setDOMContent(describe(f.properties))
          .addTo(map);
      });
    }
  }

  #fit() {
    if (!this.box) return;
    const narrow = this.el.clientWidth < 500;
    // Room for the port labels, which stand above their ports and about 60 px to each side.
    const padding = narrow ? { top: 45, bottom: 20, left: 60, right: 60 } : { top: 60, bottom: 40, left: 80, right: 80 };
    this.map.fitBounds(this.box, { padding, maxZoom: 6, duration: 0 });
  }

  #say(text) {
    this.message.textContent = text;
    this.message.hidden = !text;
  }

  // draw shows a map_geojson document; fit moves the view onto it (done when a container is
  // chosen, not on every refresh, so a user's pan and zoom stay).
  async draw(fc, { fit = false } = {}) {
    let map;
    try {
      map = await this.ready;
    } catch (err) {
      this.fail(`The map cannot be shown in this browser (${err.message ?? err}).`);
      return;
    }
    if (!this.map) return; // the page was left meanwhile
    const journey = unwrap(fc);
    map.getSource('journey').setData(journey);
    this.#labels(journey);
    this.box = bounds(journey);
    if (fit) {
      this.moved = false;
      this.#fit();
    }
    if (journey.features.length === 0) this.#say('No route yet: the map appears once the shipping line names the ports.');
    else this.#say('');
    map.once('idle', () => { this.el.dataset.state = 'drawn'; });
    map.triggerRepaint();
  }

  // #labels puts each port's label (POL, TS1, POD; DEST for the inland destination) beside it as an HTML marker: the map has no
  // font server to draw text with.
  #labels(journey) {
    for (const m of this.markers) m.remove();
    const labelled = ['port', 'inland_destination'];
    this.markers = journey.features.filter((f) => labelled.includes(f.properties?.feature_type)).map((f) => {
      const el = h('div', { class: 'port-label', 'aria-hidden': 'true' }, `${f.properties.label} ${f.properties.name}`);
      return new this.lib.Marker({ element: el, anchor: 'bottom' }).setLngLat(f.geometry.coordinates).addTo(this.map);
    });
  }

  fail(text) {
    this.el.dataset.state = 'error';
    this.#say(text);
  }

  remove() {
    this.removed = true;
    for (const m of this.markers) m.remove();
    this.map?.remove();
    if (window.boxwatch.map === this.map) window.boxwatch.map = null;
    this.map = null;
  }
}

// describe is a popup's content for a port, the inland destination or the vessel.
function describe(p) {
  if (p.feature_type === 'inland_destination') {
    return h('div', {},
      h('h3', {}, `Inland destination · ${p.name}`),
      p.facility_name ? h('p', {}, p.facility_name) : null,
      h('p', {}, [p.state, p.country].filter(Boolean).join(', '), p.mode ? ` · by ${p.mode}` : ''),
      p.inbound_ata_at ? h('p', {}, 'Arrived ', time(p.inbound_ata_at, p.time_zone)) : p.inbound_eta_at ? h('p', {}, 'Expected ', time(p.inbound_eta_at, p.time_zone)) : null);
  }
  if (p.feature_type === 'port') {
    return h('div', {},
      h('h3', {}, `${p.label} · ${p.name}`),
      h('p', {}, [p.state, p.country].filter(Boolean).join(', ')),
      p.inbound_ata_at ? h('p', {}, 'Arrived ', time(p.inbound_ata_at, p.time_zone)) : p.inbound_eta_at ? h('p', {}, 'Expected ', time(p.inbound_eta_at, p.time_zone)) : null,
      p.outbound_atd_at ? h('p', {}, 'Departed ', time(p.outbound_atd_at, p.time_zone)) : p.outbound_etd_at ? h('p', {}, 'Departs ', time(p.outbound_etd_at, p.time_zone)) : null);
  }
  const heading = typeof p.vessel_location_heading === 'number' ? `heading ${Math.round(p.vessel_location_heading)}°` : 'heading unknown';
  const speed = typeof p.vessel_location_speed === 'number' ? `${p.vessel_location_speed} kn` : null;
  return h('div', {},
    h('h3', {}, p.vessel_name, p.voyage_number ? ` · ${p.voyage_number}` : ''),
    h('p', {}, [speed, heading].filter(Boolean).join(', ')),
    h('p', {}, 'Position of ', time(p.vessel_location_timestamp)),
    p.arrival_port_name ? h('p', {}, `Next: ${p.arrival_port_label ?? ''} ${p.arrival_port_name}`) : null);
}
