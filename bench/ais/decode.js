// Runs the npm decoder ais-stream-decoder over an NMEA file, one line at a time.
//
//   node decode.js json FILE    one JSON object per decoded message on stdout, with the 1-based line
//                               of its last sentence, for ais/agree_test.go
//   node decode.js bench FILE   nanoseconds per line, the fastest of five passes after a warm-up
//                               one, for BenchmarkDecodeLine in ais/bench_test.go (make bench)
//
// Lines go straight to the decoder's transform function, skipping Node's stream machinery, so the
// time measured is the decoder's own (a lower bound for its stream API).
'use strict';
const fs = require('fs');
const AisDecoder = require('ais-stream-decoder').default;

const [mode, file] = process.argv.slice(2);
if (!['json', 'bench'].includes(mode) || !file) {
  console.error('usage: node decode.js json|bench FILE');
  process.exit(2);
}
const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
if (lines[lines.length - 1] === '') lines.pop();

// decodeAll feeds every line to a fresh decoder and calls emit(lineIndex, json) per message.
function decodeAll(emit) {
  const decoder = new AisDecoder();
  let current = 0;
  let errors = 0;
  decoder.push = (chunk) => { if (chunk !== null) emit(current, chunk); return true; };
  const done = (err) => { if (err) errors++; };
  for (current = 0; current < lines.length; current++) {
    decoder._transform(lines[current], 'utf8', done);
  }
  return errors;
}

if (mode === 'json') {
  const out = [];
  const errors = decodeAll((i, chunk) => {
    const m = JSON.parse(chunk);
    out.push(JSON.stringify({
      line: i + 1, type: m.type, mmsi: m.mmsi, lat: m.lat, lon: m.lon,
      sog: m.speedOverGround, cog: m.courseOverGround, heading: m.heading,
      imo: m.imo, name: m.name, callsign: m.callsign, part: m.partNum,
    }));
  });
  process.stdout.write(out.join('\n') + '\n');
  console.error(`${lines.length} lines, ${out.length} messages, ${errors} errors`);
} else {
  let messages = 0;
  decodeAll(() => messages++); // warm up the JIT
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const start = process.hrtime.bigint();
    decodeAll(() => messages++);
    best = Math.min(best, Number(process.hrtime.bigint() - start));
  }
  console.log((best / lines.length).toFixed(1));
}
