// The face benchmark's client (scripts/bench-face.sh): in one Node process and one run, the same
// images through hensachi's POST /face/v1/predict over loopback HTTP and through
// @vladmandic/human on its WASM backend, taking turns in a rotating order so that whatever else
// the machine does weighs on all of them alike. Prints each path's p50 and Human's p50 over
// hensachi's, as a table and as JSON lines.
//
//   node --expose-gc bench.mjs --server URL --key KEY --human DIR --rounds N IMAGE...
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const { values: opt, positionals: images } = parseArgs({
  allowPositionals: true,
  options: {
    server: { type: 'string' }, key: { type: 'string' }, human: { type: 'string' },
    rounds: { type: 'string', default: '30' },
  },
});
const rounds = Number(opt.rounds);
const humanDir = path.resolve(opt.human);
const require = createRequire(path.join(humanDir, 'package.json'));
const modules = path.join(humanDir, 'node_modules');
// Human's package exports name its WASM build without the "./" Node requires, so it is loaded by path
const { Human } = require(path.join(modules, '@vladmandic/human/dist/human.node-wasm.js'));
const jpeg = require('jpeg-js');

// Node's fetch does not read file: addresses, which is how Human is given its models here
const httpFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const u = String(url);
  if (!u.startsWith('file:')) return httpFetch(url, init);
  return new Response(fs.readFileSync(new URL(u)), { headers: { 'content-type': u.endsWith('.json') ? 'application/json' : 'application/octet-stream' } });
};

const base = {
  backend: 'wasm',
  wasmPath: `file://${modules}/@tensorflow/tfjs-backend-wasm/dist/`,
  modelBasePath: `file://${path.join(humanDir, 'models')}/`,
  debug: false,
};
// Human as it comes (its default configuration: faces with mesh, iris, emotion and description,
// bodies, hands, gestures), and Human doing what hensachi does: faces, their landmarks and their
// description (age, gender, embedding), nothing else
const configs = {
  'human default': base,
  'human faces only': {
    ...base, body: { enabled: false }, hand: { enabled: false }, gesture: { enabled: false },
    face: { iris: { enabled: false }, emotion: { enabled: false } },
  },
};
const humans = {};
for (const [name, config] of Object.entries(configs)) {
  humans[name] = new Human(config);
  await humans[name].load();
}

// one timed call: hensachi over HTTP (node:http on a kept-alive connection, the multipart body
// built once per photo, as curl sends it), or Human on the file (JPEG decoding in JavaScript, then
// detect)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function multipart(file) {
  const boundary = 'hensachi-bench-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: image/jpeg\r\n\r\n`;
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat([Buffer.from(head), file.data, Buffer.from(`\r\n--${boundary}--\r\n`)]) };
}
function hensachi(file) {
  const { type, body } = file.multipart ??= multipart(file);
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(`${opt.server}/face/v1/predict`, {
      method: 'POST', agent, headers: { 'X-API-Key': opt.key, 'Content-Type': type, 'Content-Length': body.length },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - start;
        const json = JSON.parse(Buffer.concat(chunks).toString());
        if (res.statusCode !== 200) reject(new Error(`hensachi answered ${res.statusCode}: ${JSON.stringify(json)}`));
        else resolve({ ms, faces: json.faces_detected });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
async function human(h, file) {
  const start = performance.now();
  const img = jpeg.decode(file.data, { useTArray: true, formatAsRGBA: false });
  const tensor = h.tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
  const decoded = performance.now();
  const result = await h.detect(tensor);
  tensor.dispose();
  const end = performance.now();
  return { ms: end - start, detectMs: end - decoded, faces: result.face.length };
}

const paths = { hensachi: (file) => hensachi(file) };
for (const name of Object.keys(humans)) paths[name] = (file) => human(humans[name], file);
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const results = [];
for (const image of images) {
  const file = { name: path.basename(image), data: fs.readFileSync(image) };
  const times = {};
  const faces = {};
  for (const name of Object.keys(paths)) {
    times[name] = { ms: [], detectMs: [] };
    for (let i = 0; i < 3; i++) await paths[name](file); // warm up: the first runs plan and allocate
  }
  const names = Object.keys(paths);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length];
      // the garbage of the call before is collected, and the collector's threads done, before the
      // clock starts: the JavaScript JPEG decoder's garbage must not weigh on the next call
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const t = await paths[name](file);
      times[name].ms.push(t.ms);
      if (t.detectMs !== undefined) times[name].detectMs.push(t.detectMs);
      faces[name] = t.faces;
    }
  }
  const ours = median(times.hensachi.ms);
  for (const name of names) {
    const row = { image: file.name, path: name, faces: faces[name], p50_ms: +median(times[name].ms).toFixed(1) };
    if (name !== 'hensachi') {
      row.detect_p50_ms = +median(times[name].detectMs).toFixed(1);
      row.ratio = +(row.p50_ms / ours).toFixed(2);
      row.detect_ratio = +(row.detect_p50_ms / ours).toFixed(2);
    }
    results.push(row);
  }
}

console.log(`${rounds} rounds per image, taking turns; p50 in ms; ratio = Human's p50 / hensachi's p50 (goal ≥ 5 for Human's default)`);
console.log('image            path               faces    p50   Human detect alone   ratio   ratio, detect alone');
for (const r of results) {
  console.log(`${r.image.padEnd(16)} ${r.path.padEnd(18)} ${String(r.faces).padStart(5)} ${r.p50_ms.toFixed(1).padStart(6)}   ${(r.detect_p50_ms ?? '').toString().padStart(18)}   ${(r.ratio ?? '').toString().padStart(5)}   ${(r.detect_ratio ?? '').toString().padStart(19)}`);
}
for (const r of results) console.log(JSON.stringify(r));
