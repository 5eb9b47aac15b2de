// pnpm bench media (or node bench/media.mjs): the media service and its worker as built processes
// behind the gateway. Measures a 100 MB signed upload, a 100 MB import from a local HTTPS server and
// a 100 MB signed download: MB/s, and the RSS of the gateway, the media service and the media worker
// (idle baseline after a warm-up with small files, peak during each flow, growth = peak − baseline),
// then image generation latency. Run `pnpm build` first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'services/media/package.json'));
const { TestSystem, PeakRss, idleRss } = require(path.join(root, 'packages/testkit/dist/index.js'));
const selfsigned = require('selfsigned');

const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MEDIA_MB ?? 100) * MB;
const GENERATIONS = Number(process.env.BENCH_GENERATIONS ?? 30);
const PROCESSES = ['gateway', 'media', 'media-worker'];

/** A real MP4 made by ffmpeg (4 s, 720p). */
function smallMp4() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-media-'));
  const out = path.join(dir, 'v.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30:duration=4', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', '-movflags', '+faststart', out]);
  const video = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  return video;
}

/** The MP4 padded with a `free` box to exactly `size` bytes (still a valid MP4; every byte is stored and probed). */
function padded(video, size) {
  const pad = size - video.length;
  const header = Buffer.alloc(8);
  header.writeUInt32BE(pad, 0);
  header.write('free', 4, 'latin1');
  return Buffer.concat([video, header, Buffer.alloc(pad - 8, 0x20)]);
}

const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const fmtMB = (b) => `${(b / MB).toFixed(0)} MB`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const small = smallMp4();
  const big = padded(small, SIZE);
  const pems = selfsigned.generate([{ name: 'commonName', value: 'bench CA' }], {
    keySize: 2048, days: 1, algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const caFile = path.join(os.tmpdir(), `bench-media-ca-${process.pid}.pem`);
  fs.writeFileSync(caFile, pems.cert);
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const file = req.url === '/small.mp4' ? small : big;
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': file.length }).end(file);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const fileUrl = (name) => `https://127.0.0.1:${server.address().port}/${name}`;

  // The benchmark's own HTTPS server is on loopback: exactly that address is exempt from the import rules.
  let system;
  try {
    system = await TestSystem.start({ IMPORT_ALLOW_CIDRS: '127.0.0.1/32', NODE_EXTRA_CA_CERTS: caFile, LOG_LEVEL: 'warn' }, ['media', 'media-worker', 'gateway']);
  } catch (err) {
    server.close();
    fs.rmSync(caFile, { force: true });
    throw err;
  }
  const gw = system.gatewayUrl;
  const pids = Object.fromEntries(PROCESSES.map((name) => [name, system.pid(name)]));
  const c = await system.admin(['workspace', 'create', '--name', 'bench', '--json']);
  const api = (method, p, body) =>
    fetch(`${gw}/v2${p}`, { method, headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const viaGateway = (signed) => {
    const u = new URL(signed);
    return `${gw}${u.pathname}${u.search}`;
  };
  const settle = async (id) => {
    for (;;) {
      const m = await (await api('GET', `/media/${id}`)).json();
      if (m.status !== 'PROCESSING') return m;
      await sleep(50);
    }
  };
  const upload = async (file) => {
    const { id, uploadUrl } = await (await api('POST', '/media', { name: 'v.mp4', destinationType: 'POST_MEDIA' })).json();
    const t0 = performance.now();
    const put = await fetch(viaGateway(uploadUrl), { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: file });
    if (put.status !== 201) throw new Error(`upload answered ${put.status}: ${await put.text()}`);
    const putMs = performance.now() - t0;
    await api('PATCH', `/media/${id}`);
    const media = await settle(id);
    if (media.status !== 'SUCCESS') throw new Error(`upload ended ${media.status}: ${media.errorReason}`);
    return { media, putMs, totalMs: performance.now() - t0 };
  };
  const importUrl = async (url) => {
    const t0 = performance.now();
    const { id } = await (await api('POST', '/media/from-url', { name: 'v.mp4', destinationType: 'POST_MEDIA', fileUrl: url })).json();
    const media = await settle(id);
    if (media.status !== 'SUCCESS') throw new Error(`import ended ${media.status}: ${media.errorReason}`);
    return { media, totalMs: performance.now() - t0 };
  };
  const download = async (signed) => {
    const t0 = performance.now();
    const res = await fetch(viaGateway(signed));
    let bytes = 0;
    for await (const chunk of res.body) bytes += chunk.length;
    if (res.status !== 200 || bytes !== SIZE) throw new Error(`download answered ${res.status} with ${bytes} bytes`);
    return { totalMs: performance.now() - t0 };
  };
  /** Runs a flow while watching the peak RSS of every process. */
  const watched = async (fn) => {
    const watch = PeakRss.start(pids);
    try {
      return { ...(await fn()), atStart: watch.atStart, peak: watch.stop() };
    } catch (err) {
      watch.stop();
      throw err;
    }
  };

  try {
    // Warm-up with small files, so the baseline includes loaded modules, pools and JIT-compiled code.
    const warm = await upload(small);
    await importUrl(fileUrl('small.mp4'));
    await download(warm.media.path).catch(() => undefined);
    await sleep(3000);
    const baseline = await idleRss(pids, 20, 100);

    const up = await watched(() => upload(big));
    const imp = await watched(() => importUrl(fileUrl('big.mp4')));
    const down = await watched(() => download(up.media.path));

    console.log(`\nMedia transfer (${fmtMB(SIZE)} MP4, through the gateway)`);
    console.table([
      { case: 'signed upload (PUT, then processing)', 'transfer MB/s': (SIZE / MB / (up.putMs / 1000)).toFixed(1), 'to SUCCESS MB/s': (SIZE / MB / (up.totalMs / 1000)).toFixed(1) },
      { case: 'from-url import (fetch + processing)', 'transfer MB/s': '-', 'to SUCCESS MB/s': (SIZE / MB / (imp.totalMs / 1000)).toFixed(1) },
      { case: 'signed download (GET path)', 'transfer MB/s': (SIZE / MB / (down.totalMs / 1000)).toFixed(1), 'to SUCCESS MB/s': '-' },
    ]);
    console.log(`\nResident memory (RSS) per process: idle baseline after warm-up, RSS when the flow starts, peak during each ${fmtMB(SIZE)} flow, growth = peak − idle baseline`);
    const rows = [];
    for (const name of PROCESSES) {
      for (const [flow, run] of [['signed upload', up], ['from-url import', imp], ['signed download', down]]) {
        rows.push({ process: name, flow, baseline: fmtMB(baseline[name]), 'at start': fmtMB(run.atStart[name]), peak: fmtMB(run.peak[name]), growth: fmtMB(run.peak[name] - baseline[name]) });
      }
    }
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
