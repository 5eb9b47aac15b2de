// pnpm bench media (or node bench/media.mjs): the media service and its worker as built processes
// behind the gateway, on each file store (BENCH_MEDIA_STORES, default "fs,s3": a data directory, and
// the S3-compatible versitygw of scripts/infra.sh). Measures a 200 MB signed upload, the time from
// confirmation to SUCCESS, a 200 MB import from a local HTTPS server and a 200 MB signed download,
// each in MB/s beside a bare Node server that streams the same bytes to disk (or from disk) on this
// machine; and the RSS of the gateway, the media service and the media worker (idle baseline after a
// warm-up with small files, peak during each flow, growth = peak − baseline), then image generation
// latency. Downloads are timed BENCH_MEDIA_DOWNLOADS times (default 3), the median kept. Run `pnpm build` first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'services/media/package.json'));
const { TestSystem, PeakRss, idleRss } = require(path.join(root, 'packages/testkit/dist/index.js'));
const selfsigned = require('selfsigned');

const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MEDIA_MB ?? 200) * MB;
const STORES = (process.env.BENCH_MEDIA_STORES ?? 'fs,s3').split(',').filter(Boolean);
const GENERATIONS = Number(process.env.BENCH_GENERATIONS ?? 30);
const PROCESSES = ['gateway', 'media', 'media-worker'];

/** A real MP4 made by ffmpeg (4 s, 720p). */
function smallMp4() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-media-'));
  const out = path.join(dir, 'v.mp4');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=1280x720:rate=30:duration=4',
    '-pix_fmt',
    'yuv420p',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-movflags',
    '+faststart',
    out,
  ]);
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
/** Downloads are timed this many times (BENCH_MEDIA_DOWNLOADS), the bare server's too, and the median kept: one run swings by 2× on a shared machine. */
const DOWNLOADS = Number(process.env.BENCH_MEDIA_DOWNLOADS ?? 3);
const medianOf = async (n, fn) => {
  const xs = [];
  for (let i = 0; i < n; i++) xs.push(await fn());
  return pct(xs, 50);
};

async function main() {
  const small = smallMp4();
  const big = padded(small, SIZE);
  const pems = selfsigned.generate([{ name: 'commonName', value: 'bench CA' }], {
    keySize: 2048,
    days: 1,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const caFile = path.join(os.tmpdir(), `bench-media-ca-${process.pid}.pem`);
  fs.writeFileSync(caFile, pems.cert);
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const file = req.url === '/small.mp4' ? small : big;
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': file.length }).end(file);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const fileUrl = (name) => `https://127.0.0.1:${server.address().port}/${name}`;

  try {
    const bare = await bareRun(big, fileUrl('big.mp4'), pems.cert);
    const results = [];
    for (const store of STORES) {
      try {
        results.push({ store, ...(await systemRun(store, { small, big, fileUrl, caFile, generations: results.length === 0 })) });
      } catch (err) {
        console.error(`store ${store} failed: ${err.message}`);
      }
    }
    report(bare, results);
  } finally {
    server.close();
    fs.rmSync(caFile, { force: true });
  }
}

/** The same transfers against a bare Node HTTP server that streams to and from a file on disk. */
async function bareRun(big, importUrl, ca) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bare-'));
  const file = path.join(dir, 'f');
  const server = http.createServer(async (req, res) => {
    if (req.method === 'PUT') {
      await pipeline(req, fs.createWriteStream(file));
      res.writeHead(201).end();
    } else {
      res.writeHead(200, { 'content-length': fs.statSync(file).size });
      await pipeline(fs.createReadStream(file, { highWaterMark: MB }), res);
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/f`;
  try {
    let t0 = performance.now();
    const put = await fetch(url, { method: 'PUT', body: new Blob([big]) });
    if (put.status !== 201) throw new Error(`bare PUT answered ${put.status}`);
    const uploadMs = performance.now() - t0;
    const downloadMs = await medianOf(DOWNLOADS, async () => {
      const t = performance.now();
      const res = await fetch(url);
      let bytes = 0;
      for await (const chunk of res.body) bytes += chunk.length;
      if (bytes !== big.length) throw new Error(`bare GET gave ${bytes} bytes`);
      return performance.now() - t;
    });
    // An import without anything around it: the HTTPS body streamed to a file.
    t0 = performance.now();
    await new Promise((resolve, reject) => {
      https.get(importUrl, { ca }, (r) => pipeline(r, fs.createWriteStream(path.join(dir, 'i'))).then(resolve, reject)).on('error', reject);
    });
    const importMs = performance.now() - t0;
    return { uploadMs, downloadMs, importMs };
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The local S3-compatible store's settings (infra.sh), with a bucket of this run. */
async function s3Env() {
  const credFile = execFileSync('bash', [path.join(root, 'scripts/infra.sh'), 's3-credentials'])
    .toString()
    .trim();
  const creds = Object.fromEntries(
    fs
      .readFileSync(credFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('=', 2)),
  );
  const { S3Client, CreateBucketCommand } = require('@aws-sdk/client-s3');
  const endpoint = process.env.S3_ENDPOINT ?? 'http://127.0.0.1:7070';
  const bucket = `bench-${randomBytes(4).toString('hex')}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: creds.S3_ACCESS_KEY_ID, secretAccessKey: creds.S3_SECRET_ACCESS_KEY },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return { env: { MEDIA_STORE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, ...creds }, cleanup: () => emptyBucket(client, bucket) };
}

async function emptyBucket(client, bucket) {
  const { ListObjectsV2Command, DeleteObjectsCommand, DeleteBucketCommand } = require('@aws-sdk/client-s3');
  const page = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
  const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key }));
  if (keys.length) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
  client.destroy();
}

async function systemRun(store, { small, big, fileUrl, caFile, generations }) {
  const storeEnv = store === 's3' ? await s3Env() : { env: { MEDIA_STORE: 'fs' }, cleanup: async () => undefined };
  // The benchmark's own HTTPS server is on loopback: exactly that address is exempt from the import rules.
  // A RabbitMQ vhost of its own: the queue names are fixed, and another system on this broker
  // (`pnpm start`, another bench) would otherwise take this run's processing jobs.
  const vhost = `bench-media-${process.pid}-${store}`;
  const ctl = (...args) => execFileSync('rabbitmqctl', ['-q', ...args], { stdio: 'ignore', timeout: 60000 });
  const amqp = process.env.AMQP_URL
    ? {}
    : (ctl('add_vhost', vhost),
      ctl('set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*'),
      { AMQP_URL: `amqp://guest:guest@127.0.0.1:5672/${vhost}` });
  const system = await TestSystem.start(
    { IMPORT_ALLOW_CIDRS: '127.0.0.1/32', NODE_EXTRA_CA_CERTS: caFile, LOG_LEVEL: 'warn', ...amqp, ...storeEnv.env },
    ['media', 'media-worker', 'gateway'],
  );
  const gw = system.gatewayUrl;
  const pids = Object.fromEntries(PROCESSES.map((name) => [name, system.pid(name)]));
  const c = await system.admin(['workspace', 'create', '--name', 'bench', '--json']);
  const api = (method, p, body) =>
    fetch(`${gw}/v2${p}`, {
      method,
      headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
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
    // A Blob: fetch follows the store's 307 (s3) with the same body.
    const put = await fetch(viaGateway(uploadUrl), { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: new Blob([file]) });
    if (put.status !== 201 && put.status !== 200) throw new Error(`upload answered ${put.status}: ${await put.text()}`);
    const putMs = performance.now() - t0;
    const t1 = performance.now();
    await api('PATCH', `/media/${id}`);
    const media = await settle(id);
    if (media.status !== 'SUCCESS') throw new Error(`upload ended ${media.status}: ${media.errorReason}`);
    return { media, putMs, confirmMs: performance.now() - t1, totalMs: performance.now() - t0 };
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
    const down = await watched(async () => ({ totalMs: await medianOf(DOWNLOADS, async () => (await download(up.media.path)).totalMs) }));
    let gen = null;
    if (generations) {
      const lat = [];
      for (let i = 0; i < GENERATIONS; i++) {
        const s = performance.now();
        const res = await api('POST', '/assistant/generate-image', { prompt: `bench prompt ${i}`, aspectRatio: '1:1' });
        if (res.status !== 201) throw new Error(`generation answered ${res.status}`);
        await res.arrayBuffer();
        lat.push(performance.now() - s);
      }
      gen = lat;
    }
    return { baseline, up, imp, down, gen };
  } finally {
    await system.destroy();
    await storeEnv.cleanup().catch(() => undefined);
    if (amqp.AMQP_URL) ctl('delete_vhost', vhost);
  }
}

function report(bare, results) {
  const mbps = (ms) => SIZE / MB / (ms / 1000);
  const vs = (ms, bareMs) => `${((mbps(ms) / mbps(bareMs)) * 100).toFixed(0)} %`;
  console.log(`\nMedia transfer (${fmtMB(SIZE)} MP4, through the gateway) beside a bare Node server streaming to/from disk`);
  const rows = [];
  for (const r of results) {
    rows.push({
      store: r.store,
      case: 'signed upload (PUT transfer)',
      'MB/s': mbps(r.up.putMs).toFixed(1),
      'bare MB/s': mbps(bare.uploadMs).toFixed(1),
      'of bare': vs(r.up.putMs, bare.uploadMs),
    });
    rows.push({
      store: r.store,
      case: 'confirm → SUCCESS',
      'MB/s': `${(r.up.confirmMs / 1000).toFixed(2)} s`,
      'bare MB/s': '-',
      'of bare': '-',
    });
    rows.push({
      store: r.store,
      case: 'from-url import (to SUCCESS)',
      'MB/s': mbps(r.imp.totalMs).toFixed(1),
      'bare MB/s': mbps(bare.importMs).toFixed(1),
      'of bare': vs(r.imp.totalMs, bare.importMs),
    });
    rows.push({
      store: r.store,
      case: 'signed download (GET path)',
      'MB/s': mbps(r.down.totalMs).toFixed(1),
      'bare MB/s': mbps(bare.downloadMs).toFixed(1),
      'of bare': vs(r.down.totalMs, bare.downloadMs),
    });
  }
  console.table(rows);
  console.log(
    `\nResident memory (RSS) per process: idle baseline after warm-up, peak during each ${fmtMB(SIZE)} flow, growth = peak − idle baseline`,
  );
  const mem = [];
  for (const r of results) {
    for (const name of PROCESSES) {
      const row = { store: r.store, process: name, baseline: fmtMB(r.baseline[name]) };
      for (const [flow, run] of [
        ['upload', r.up],
        ['import', r.imp],
        ['download', r.down],
      ])
        row[`${flow} growth`] = fmtMB(run.peak[name] - r.baseline[name]);
      mem.push(row);
    }
  }
  console.table(mem);
  const gen = results.find((r) => r.gen)?.gen;
  if (gen) {
    console.log(`\nImage generation (local provider, 1:1 standard 1024x1024, ${GENERATIONS} sequential requests)`);
    console.table([
      { p50: `${pct(gen, 50).toFixed(0)} ms`, p99: `${pct(gen, 99).toFixed(0)} ms`, max: `${Math.max(...gen).toFixed(0)} ms` },
    ]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
