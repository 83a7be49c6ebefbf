// Times npm searoute-js 0.1.0 on the pairs of a pairs file (the shape of boxwatch's
// searoute/testdata/pairs.json) and compares with the JSON lines `boxwatch route --pairs`
// printed for the same file: per pair the reference distance, boxwatch's distance and its
// difference, both medians in ms; then the ratio of the medians over all pairs.
//
// usage: node bench.js PAIRS.json BOXWATCH_LINES.jsonl [REPEAT]
'use strict';
const fs = require('fs');
const searoute = require('searoute-js');

const [pairsFile, boxwatchFile, repeatArg] = process.argv.slice(2);
const repeat = Number(repeatArg || 11);
const pairs = JSON.parse(fs.readFileSync(pairsFile, 'utf8')).pairs;
const boxwatch = new Map(fs.readFileSync(boxwatchFile, 'utf8').trim().split('\n')
  .map((line) => JSON.parse(line)).map((r) => [r.id, r]));

const point = (p) => ({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [p.lon, p.lat] } });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// searoute-js logs the index of the feature it snaps to on every call.
const log = console.log;
const quiet = (f) => { console.log = () => {}; try { return f(); } finally { console.log = log; } };

const rows = [];
for (const p of pairs) {
  const times = [];
  let route = null;
  for (let i = 0; i < repeat; i++) {
    const start = process.hrtime.bigint();
    route = quiet(() => searoute(point(p.origin), point(p.destination)));
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const b = boxwatch.get(p.id);
  if (!b) throw new Error(`no boxwatch line for pair ${p.id}`);
  rows.push({
    id: p.id,
    ref: p.distance_nm,
    bw: b.distance_nm,
    delta: (100 * (b.distance_nm - p.distance_nm)) / p.distance_nm,
    bwMS: b.ms,
    // searoute-js's own length is in "nm" inflated by 1.15078², so it is shown as it reports it.
    jsNM: route ? route.properties.length : NaN,
    jsMS: median(times),
  });
}

log('| pair | reference nm | boxwatch nm | Δ % | boxwatch ms | searoute-js ms | searoute-js "nm" |');
log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  log(`| ${r.id} | ${r.ref.toFixed(1)} | ${r.bw.toFixed(1)} | ${r.delta >= 0 ? '+' : ''}${r.delta.toFixed(2)} | ${r.bwMS.toFixed(3)} | ${r.jsMS.toFixed(2)} | ${r.jsNM.toFixed(0)} |`);
}
const bw = median(rows.map((r) => r.bwMS));
const js = median(rows.map((r) => r.jsMS));
log(`\nmedian query over ${rows.length} pairs: boxwatch ${bw.toFixed(3)} ms, searoute-js ${js.toFixed(2)} ms: boxwatch is 1/${(js / bw).toFixed(0)} of searoute-js (bar: 1/50)`);
