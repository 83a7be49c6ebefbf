// Geometry for the map, without the map library: the land from world-atlas's TopoJSON, and a
// journey's longitudes made continuous so that lines cross the antimeridian the short way.

// landFromTopology decodes the "land" object of a quantized TopoJSON topology (world-atlas's
// land-50m.json) into a GeoJSON FeatureCollection. Arcs are delta-encoded integer positions;
// a polygon ring lists arcs by index, ~i meaning arc i reversed, each arc starting where the
// previous one ended.
export function landFromTopology(topology, name = 'land') {
  const t = topology.transform;
  const arcs = topology.arcs.map((arc) => {
    let x = 0;
    let y = 0;
    return arc.map(([dx, dy]) => {
      x += dx;
      y += dy;
      return t ? [x * t.scale[0] + t.translate[0], y * t.scale[1] + t.translate[1]] : [x, y];
    });
  });
  const ring = (indexes) => {
    const points = [];
    for (const i of indexes) {
      const arc = i < 0 ? arcs[~i].slice().reverse() : arcs[i];
      points.push(...(points.length ? arc.slice(1) : arc));
    }
    return points;
  };
  // A polygon cut at the antimeridian becomes one polygon per piece of its outer ring; its holes
  // (lakes, which never cross it) go with the piece on their side.
  const polygons = (rings) => {
    const [outer, ...holes] = rings.map((r) => planar(ring(r)));
    const out = outer.map((piece) => [piece]);
    for (const hole of holes.flat()) {
      const x = hole[0][0];
      const home = out.find(([piece]) => x >= Math.min(...piece.map((p) => p[0])) && x <= Math.max(...piece.map((p) => p[0])));
      if (home) home.push(hole);
    }
    return out;
  };
  const geometry = (g) => {
    if (g.type === 'Polygon') return { type: 'MultiPolygon', coordinates: polygons(g.arcs) };
    if (g.type === 'MultiPolygon') return { type: 'MultiPolygon', coordinates: g.arcs.flatMap(polygons) };
    return null;
  };
  const object = topology.objects[name];
  const geometries = object.type === 'GeometryCollection' ? object.geometries : [object];
  return {
    type: 'FeatureCollection',
    features: geometries.map(geometry).filter(Boolean).map((g) => ({ type: 'Feature', properties: {}, geometry: g })),
  };
}

// planar makes a ring drawn on the sphere fit a flat map, as rings that each lie within
// [-180°, 180°]. world-atlas's rings are spherical: one crossing the antimeridian jumps from 180°
// to -180°, which a flat map draws as a band across the world. Such a ring's longitudes are made
// continuous (one going round a pole, Antarctica's coast, is closed through that pole), then the
// ring is cut at ±180° and each piece moved back by whole turns. A ring along the pole itself is
// dropped.
function planar(points) {
  let jumps = false;
  let turn = 0;
  for (let i = 1; i < points.length; i++) {
    let d = points[i][0] - points[i - 1][0];
    if (Math.abs(d) > 180) {
      jumps = true;
      d -= 360 * Math.sign(d);
    }
    turn += d;
  }
  if (!jumps) return [points];
  if (points.every(([, lat]) => Math.abs(lat) > 89.9)) return [];
  const ring = [points[0]];
  for (let i = 1; i < points.length; i++) {
    const [x, y] = points[i];
    ring.push([x + 360 * Math.round((ring[i - 1][0] - x) / 360), y]);
  }
  if (Math.abs(turn) > 180) {
    const pole = ring.reduce((sum, [, y]) => sum + y, 0) < 0 ? -90 : 90;
    const first = ring[0];
    ring.push([ring[ring.length - 1][0], pole], [first[0], pole], first);
  } else if (ring[ring.length - 1][0] !== ring[0][0]) {
    ring.push(ring[0]);
  }
  const xs = ring.map(([x]) => x);
  const pieces = [];
  for (let k = Math.floor((Math.min(...xs) + 180) / 360); k <= Math.floor((Math.max(...xs) + 180) / 360); k++) {
    const west = -180 + 360 * k;
    const piece = clipX(clipX(ring, west, false), west + 360, true);
    if (piece.length >= 4) pieces.push(piece.map(([x, y]) => [x - 360 * k, y]));
  }
  return pieces;
}

// clipX keeps the part of a closed ring west of x = c (west true) or east of it
// (Sutherland–Hodgman against one line).
function clipX(ring, c, west) {
  const inside = ([x]) => (west ? x <= c : x >= c);
  const out = [];
  for (let i = 0; i + 1 < ring.length; i++) {
    const a = ring[i];
    const b = ring[i + 1];
    if (inside(a)) out.push(a);
    if (inside(a) !== inside(b)) out.push([c, a[1] + ((c - a[0]) / (b[0] - a[0])) * (b[1] - a[1])]);
  }
  if (out.length) out.push(out[0]);
  return out;
}

// unwrap returns a copy of a map_geojson FeatureCollection whose longitudes run on without the
// jump at ±180°: a trans-Pacific leg from 121° to -118° comes out as 121° to 242°, which a web
// map draws across the Pacific instead of across Asia, Europe and the Atlantic. Lines are taken
// in their order (the journey's), each continuing from where the previous one ended; each point
// (port, vessel) then moves by whole turns to the copy nearest the lines.
export function unwrap(fc) {
  let ref = null;
  const firstPoint = fc.features.find((f) => f.geometry?.type === 'Point');
  if (firstPoint) ref = firstPoint.geometry.coordinates[0];
  const follow = ([lng, lat]) => {
    let x = lng;
    if (ref !== null) {
      while (x - ref > 180) x -= 360;
      while (x - ref < -180) x += 360;
    }
    ref = x;
    return [x, lat];
  };
  const ends = [];
  const lines = fc.features.map((f) => {
    const g = f.geometry;
    if (g?.type === 'LineString') {
      const coordinates = g.coordinates.map(follow);
      ends.push(coordinates[0], coordinates[coordinates.length - 1]);
      return { ...f, geometry: { type: 'LineString', coordinates } };
    }
    if (g?.type === 'MultiLineString') {
      // Cut at the antimeridian (?antimeridian=split): the parts join into one line again.
      const coordinates = g.coordinates.flat().map(follow);
      ends.push(coordinates[0], coordinates[coordinates.length - 1]);
      return { ...f, geometry: { type: 'LineString', coordinates } };
    }
    return f;
  });
  const features = lines.map((f) => {
    if (f.geometry?.type !== 'Point') return f;
    const [lng, lat] = f.geometry.coordinates;
    let best = lng;
    if (ends.length) {
      let bestDist = Infinity;
      for (let k = -2; k <= 2; k++) {
        const x = lng + 360 * k;
        for (const [ex, ey] of ends) {
          const d = (x - ex) ** 2 + (lat - ey) ** 2;
          if (d < bestDist) {
            bestDist = d;
            best = x;
          }
        }
      }
    } else {
      best = follow([lng, lat])[0];
    }
    return { ...f, geometry: { type: 'Point', coordinates: [best, lat] } };
  });
  return { ...fc, features };
}

// bounds returns [[west, south], [east, north]] around every position, or null when there is none.
export function bounds(fc) {
  let w = Infinity;
  let s = Infinity;
  let e = -Infinity;
  let n = -Infinity;
  const add = ([x, y]) => {
    w = Math.min(w, x);
    e = Math.max(e, x);
    s = Math.min(s, y);
    n = Math.max(n, y);
  };
  for (const f of fc.features) {
    const g = f.geometry;
    if (!g) continue;
    if (g.type === 'Point') add(g.coordinates);
    else if (g.type === 'LineString') g.coordinates.forEach(add);
    else if (g.type === 'MultiLineString') g.coordinates.flat().forEach(add);
  }
  return w === Infinity ? null : [[w, s], [e, n]];
}
