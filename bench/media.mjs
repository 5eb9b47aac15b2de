// pnpm bench media (or node bench/media.mjs): the media service and its worker as built processes
// behind the gateway. Measures a 100 MB signed upload and a 100 MB import from a local HTTPS server
// (MB/s until the media is SUCCESS, and of the transfer alone), the peak RSS of the media service
// and worker while they run, and image generation latency. Run `pnpm build` first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'services/media/package.json'));
const { TestSystem } = require(path.join(root, 'packages/testkit/dist/index.js'));
const selfsigned = require('selfsigned');

const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MEDIA_MB ?? 100) * MB;
const GENERATIONS = Number(process.env.BENCH_GENERATIONS ?? 30);

/** A real MP4 made by ffmpeg, padded with a `free` box to exactly SIZE bytes (still a valid MP4). */
function bigMp4() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-media-'));
  const out = path.join(dir, 'v.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30:duration=4', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', '-movflags', '+faststart', out]);
  const video = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  const pad = SIZE - video.length;
  const header = Buffer.alloc(8);
  header.writeUInt32BE(pad, 0);
  header.write('free', 4, 'latin1');
  return Buffer.concat([video, header, Buffer.alloc(pad - 8, 0x20)]);
}

function rssSampler(pids) {
  const peak = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
  const timer = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) {
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        peak[name] = Math.max(peak[name], kb * 1024);
      } catch {
        // process gone
      }
    }
  }, 20);
  return { stop: () => (clearInterval(timer), peak) };
}

const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const fmtMB = (b) => `${(b / MB).toFixed(0)} MB`;

async function main() {
  const file = bigMp4();
  const pems = selfsigned.generate([{ name: 'commonName', value: 'bench CA' }], {
    keySize: 2048, days: 1, algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const caFile = path.join(os.tmpdir(), `bench-media-ca-${process.pid}.pem`);
  fs.writeFileSync(caFile, pems.cert);
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': file.length }).end(file);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const fileUrl = `https://127.0.0.1:${server.address().port}/big.mp4`;

  // The benchmark's own HTTPS server is on loopback: exactly that address is exempt from the import rules.
  const system = await TestSystem.start({ IMPORT_ALLOW_CIDRS: '127.0.0.1/32', NODE_EXTRA_CA_CERTS: caFile, LOG_LEVEL: 'warn' }, ['media', 'media-worker', 'gateway']);
  const gw = system.gatewayUrl;
  const pids = { media: system.children.get('media').pid, 'media-worker': system.children.get('media-worker').pid };
  const c = await system.admin(['workspace', 'create', '--name', 'bench', '--json']);
  const api = (method, p, body) =>
    fetch(`${gw}/v2${p}`, { method, headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const settle = async (id) => {
    for (;;) {
      const m = await (await api('GET', `/media/${id}`)).json();
      if (m.status !== 'PROCESSING') return m;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const rows = [];
  try {
    // Signed upload through the gateway's storage host.
    let sampler = rssSampler(pids);
    const { id, uploadUrl } = await (await api('POST', '/media', { name: 'big.mp4', destinationType: 'POST_MEDIA' })).json();
    const u = new URL(uploadUrl);
    let t0 = performance.now();
    const put = await fetch(`${gw}${u.pathname}${u.search}`, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: file });
    if (put.status !== 201) throw new Error(`upload answered ${put.status}: ${await put.text()}`);
    const putMs = performance.now() - t0;
    await api('PATCH', `/media/${id}`);
    const up = await settle(id);
    const upMs = performance.now() - t0;
    let peak = sampler.stop();
    if (up.status !== 'SUCCESS') throw new Error(`upload ended ${up.status}: ${up.errorReason}`);
    rows.push({ case: `signed upload ${fmtMB(SIZE)}`, 'transfer MB/s': (SIZE / MB / (putMs / 1000)).toFixed(1), 'to SUCCESS MB/s': (SIZE / MB / (upMs / 1000)).toFixed(1), 'peak RSS media': fmtMB(peak.media), 'peak RSS worker': fmtMB(peak['media-worker']) });

    // Import from a local HTTPS server (fetched, stored and probed by the worker).
    sampler = rssSampler(pids);
    t0 = performance.now();
    const imported = await (await api('POST', '/media/from-url', { name: 'big.mp4', destinationType: 'POST_MEDIA', fileUrl })).json();
    const done = await settle(imported.id);
    const impMs = performance.now() - t0;
    peak = sampler.stop();
    if (done.status !== 'SUCCESS') throw new Error(`import ended ${done.status}: ${done.errorReason}`);
    rows.push({ case: `from-url import ${fmtMB(SIZE)}`, 'transfer MB/s': '-', 'to SUCCESS MB/s': (SIZE / MB / (impMs / 1000)).toFixed(1), 'peak RSS media': fmtMB(peak.media), 'peak RSS worker': fmtMB(peak['media-worker']) });
    console.log(`\nMedia transfer (${fmtMB(SIZE)} MP4, through the gateway; RSS sampled every 20 ms)`);
    console.table(rows);

    // Generation latency, sequential, local provider.
    const lat = [];
    for (let i = 0; i < GENERATIONS; i++) {
      const s = performance.now();
      const res = await api('POST', '/assistant/generate-image', { prompt: `bench prompt ${i}`, aspectRatio: '1:1' });
      if (res.status !== 201) throw new Error(`generation answered ${res.status}`);
      await res.arrayBuffer();
      lat.push(performance.now() - s);
    }
    console.log(`\nImage generation (local provider, 1:1 standard 1024x1024, ${GENERATIONS} sequential requests)`);
    console.table([{ p50: `${pct(lat, 50).toFixed(0)} ms`, p99: `${pct(lat, 99).toFixed(0)} ms`, max: `${Math.max(...lat).toFixed(0)} ms` }]);
  } finally {
    await system.destroy();
    server.close();
    fs.rmSync(caFile, { force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
