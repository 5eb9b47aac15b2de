// `pnpm bench db`: FerretDB builds side by side in one run: each runs at once on a PostgreSQL
// database of its own, and every workload alternates between them round by round, so machine noise
// hits all alike. Compare the figures of one run (ratios), not figures of runs made at other times.
//
// BENCH_BUILDS names the builds, comma-separated (default `stock,ours`):
//   stock           FerretDB v1.24.2 as released
//   ours            every scripts/ferretdb/*.patch, in glob order (what scripts/infra.sh runs)
//   a+b             the patches scripts/ferretdb/a.patch then b.patch, e.g. `conditional-writes`
//   label=a+b       the same, shown as `label`
//   label=/path     a FerretDB binary built elsewhere (while working on a patch)
// e.g. BENCH_BUILDS=before=conditional-writes,ours compares our previous build with the current one.
// Each build is made once and cached per patch content (scripts/infra.sh ferretdb-build).
//
// Workloads (BENCH_WORKLOADS: a comma-separated subset of their keys), each with BENCH_CLIENTS
// clients (default 1,8):
//   insert        insert of one small document
//   find          find by _id (small documents)
//   update        an uncontended update ($inc of a document only this client writes)
//   cas-hot       a contended compare-and-set: every client reads one hot document and writes it
//                 back conditionally on the version it read; the table also says how many
//                 "successful" writes the server reported that are not in the document (the writes
//                 it let two clients win)
//   post-cas      what the posts service does per write: replaceOne({workspaceId, _id, version})
//                 of a 3 KB document whose collection has 3 indexed fields, uncontended
//   post-find     find of such a document by _id
//   insert-20     insertMany of 20 such documents
//   update-20     one update command carrying 20 compare-and-sets of such documents (bulkWrite of
//                 replaceOne, unordered), as the posts service's group commit sends them
// For each build: operations per second, and CPU per operation in ms (the FerretDB process plus the
// PostgreSQL backends of its database, from /proc), also split as FerretDB / PostgreSQL.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSince, cpuSnapshot } from './lib/cpu.mjs';
import { table, fmt } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const { mongoose } = require('../packages/mongo/dist');
const { MongoClient } = mongoose.mongo;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,8').split(',').map(Number);
// BENCH_PROFILE=dir: a Go CPU profile of each FerretDB during each measurement, into dir
// (`go tool pprof -top dir/<build>-<workload>-<clients>.pprof`).
const PROFILE_DIR = process.env.BENCH_PROFILE;
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const BUILDS = (process.env.BENCH_BUILDS ?? 'stock,ours').split(',').map((spec) => {
  const [label, patches] = spec.includes('=') ? spec.split('=') : [spec, spec];
  return { label, patches };
});

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const psql = (db, ...args) => execFileSync('psql', [`${PG}/${db}`, '-qtA', '-v', 'ON_ERROR_STOP=1', ...args], { encoding: 'utf8' });

/** The binary of a build (see BENCH_BUILDS), built once per patch content. */
function binaryOf(patches) {
  if (patches.startsWith('/')) return patches;
  let files = [];
  if (patches === 'ours') {
    files = execFileSync('bash', ['-c', 'ls scripts/ferretdb/*.patch'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
  } else if (patches !== 'stock') {
    files = patches.split('+').map((p) => `scripts/ferretdb/${p}.patch`);
  }
  return execFileSync('bash', [path.join(ROOT, 'scripts/infra.sh'), 'ferretdb-build', ...files], { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** A FerretDB on a PostgreSQL database of its own, set up as scripts/infra.sh sets up ours. */
async function startServer(index, label, bin) {
  const db = `ferretdb_bench_${process.pid}_${index}`;
  psql('postgres', '-c', `DROP DATABASE IF EXISTS ${db}`, '-c', `CREATE DATABASE ${db}`);
  psql(db, '-f', path.join(ROOT, 'scripts/ferretdb-pg-indexes.sql'));
  const [port, debugPort] = [await freePort(), await freePort()];
  const child = spawn(
    bin,
    [
      `--listen-addr=127.0.0.1:${port}`,
      `--debug-addr=127.0.0.1:${debugPort}`,
      '--telemetry=disable',
      // FerretDB writes state.json into this directory (the working directory by default).
      `--state-dir=${os.tmpdir()}`,
      '--log-level=error',
      '--handler=pg',
      `--postgresql-url=${PG}/${db}?pool_max_conns=100&sslmode=disable`,
    ],
    { env: { ...process.env, GOGC: '400' }, stdio: 'ignore' },
  );
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/?maxPoolSize=16`, { retryWrites: false });
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      break;
    } catch (err) {
      if (i > 100) throw err;
      await sleep(100);
    }
  }
  // PostgreSQL names the database in each backend's process title.
  const cpuGroups = {
    ferretdb: (p) => p.pid === child.pid,
    postgres: (p) => p.cmdline.startsWith('postgres: ') && p.cmdline.includes(` ${db} `),
  };
  return {
    label,
    bin,
    pgDb: db,
    debugPort,
    cpuGroups,
    db: client.db('bench'),
    col: client.db('bench').collection('docs'),
    posts: client.db('bench').collection('posts'),
    async stop() {
      await client.close();
      child.kill();
      await new Promise((r) => child.once('exit', r));
      psql('postgres', '-c', `DROP DATABASE IF EXISTS ${db}`);
    },
  };
}

/** `clients` loops running `op(client, i)` back to back for SECONDS: ops/s, p99 ms, CPU ms per op. */
async function measure(server, label, clients, op) {
  // Warm up: every client's connection, prepared statements, the pool's PostgreSQL backends (a
  // backend started during the window would not be counted).
  await Promise.all(Array.from({ length: clients }, (_, c) => op(c, -1)));
  const latencies = [];
  const profile = PROFILE_DIR && fetch(`http://127.0.0.1:${server.debugPort}/debug/pprof/profile?seconds=${Math.max(1, SECONDS - 1)}`);
  const cpu = cpuSnapshot(server.cpuGroups);
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const t = performance.now();
        await op(c, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const { seconds } = cpuSince(cpu, server.cpuGroups);
  if (profile) {
    const file = path.join(PROFILE_DIR, `${server.label}-${label}-${clients}.pprof`.replace(/[^\w.-]+/g, '_'));
    writeFileSync(file, Buffer.from(await (await profile).arrayBuffer()));
  }
  latencies.sort((a, b) => a - b);
  const n = latencies.length;
  return {
    ops: n / elapsed,
    p99: latencies[Math.floor(n * 0.99)] ?? 0,
    fdbMs: (seconds.ferretdb * 1000) / n,
    pgMs: (seconds.postgres * 1000) / n,
  };
}

/** A post as the posts service stores it: a few KB, three indexed fields. */
const POST_TEXT = 'lorem ipsum dolor sit amet '.repeat(100);
function post(_id, workspaceId, version) {
  return {
    _id,
    workspaceId,
    status: 'SCHEDULED',
    version,
    text: POST_TEXT,
    profiles: Array.from({ length: 4 }, (_, i) => ({ profileId: `prof-${i}`, network: 'x', state: 'QUEUED', attempts: 0 })),
    media: [{ id: 'm-1', kind: 'image', url: 'https://cdn.example.test/m-1.jpg' }],
    publishAt: new Date(1_700_000_000_000),
    createdAt: new Date(1_700_000_000_000),
  };
}
const POSTS_PER_CLIENT = 200;
const postId = (c, i) => `p-${c}-${i % POSTS_PER_CLIENT}`;
const workspaceOf = (c) => `ws-${c % 4}`;

let seq = 0;
const workloads = [
  { key: 'insert', label: 'insert', op: (s) => (c) => s.col.insertOne({ _id: `i-${++seq}`, c, text: 'x'.repeat(200), at: new Date() }) },
  { key: 'find', label: 'find by _id', op: (s) => (c, i) => s.col.findOne({ _id: `f-${(c * 7919 + i + 1) % 1000}` }) },
  {
    key: 'update',
    label: 'update (uncontended)',
    op: (s) => (c, i) => s.col.updateOne({ _id: `u-${c}-${(i + 50) % 50}` }, { $inc: { n: 1 } }),
  },
  {
    key: 'cas-hot',
    label: 'compare-and-set (contended)',
    op: (s, stats) => async () => {
      const doc = await s.col.findOne({ _id: 'hot' });
      const r = await s.col.updateOne({ _id: 'hot', v: doc.v }, { $set: { v: doc.v + 1 } });
      stats.wins += r.modifiedCount;
    },
  },
  {
    key: 'post-cas',
    label: 'post compare-and-set (3 KB)',
    op: (s, stats) => async (c, i) => {
      const _id = postId(c, i + POSTS_PER_CLIENT);
      const version = s.versions.get(_id);
      const r = await s.posts.replaceOne({ workspaceId: workspaceOf(c), _id, version }, post(_id, workspaceOf(c), version + 1));
      if (r.modifiedCount !== 1) throw new Error(`${s.label}: compare-and-set of ${_id} at version ${version} did not win`);
      s.versions.set(_id, version + 1);
      stats.wins += 1;
    },
  },
  { key: 'post-find', label: 'post find by _id (3 KB)', op: (s) => (c, i) => s.posts.findOne({ _id: postId(c, i + POSTS_PER_CLIENT) }) },
  {
    key: 'insert-20',
    label: 'insertMany of 20 (3 KB)',
    op: (s) => (c) => s.posts.insertMany(Array.from({ length: 20 }, () => post(`n-${++seq}`, workspaceOf(c), 0))),
  },
  {
    key: 'update-20',
    label: 'update of 20 compare-and-sets',
    op: (s) => async (c, i) => {
      // Client c's posts, 20 at a time: no two clients write the same post.
      const ids = Array.from({ length: 20 }, (_, k) => postId(c, (i + 1) * 20 + k + POSTS_PER_CLIENT));
      const r = await s.posts.bulkWrite(
        ids.map((_id) => ({
          replaceOne: {
            filter: { workspaceId: workspaceOf(c), _id, version: s.versions.get(_id) },
            replacement: post(_id, workspaceOf(c), s.versions.get(_id) + 1),
          },
        })),
        { ordered: false },
      );
      if (r.modifiedCount !== 20) throw new Error(`${s.label}: ${r.modifiedCount} of 20 compare-and-sets won`);
      for (const _id of ids) s.versions.set(_id, s.versions.get(_id) + 1);
    },
  },
].filter((w) => !process.env.BENCH_WORKLOADS || process.env.BENCH_WORKLOADS.split(',').includes(w.key));

const servers = [];
try {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  console.error('building (once) or finding the FerretDB builds...');
  const bins = BUILDS.map((b) => binaryOf(b.patches));
  for (const [i, b] of BUILDS.entries()) servers.push(await startServer(i, b.label, bins[i]));
  const maxClients = Math.max(...CLIENTS);
  for (const s of servers) {
    await s.col.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: `f-${i}`, text: 'y'.repeat(200) })));
    await s.col.insertMany(Array.from({ length: maxClients * 50 }, (_, i) => ({ _id: `u-${Math.floor(i / 50)}-${i % 50}`, n: 0 })));
    // Three indexed fields besides _id (the posts service has _id and workspaceId).
    await s.posts.createIndex({ workspaceId: 1 });
    await s.posts.createIndex({ status: 1 });
    await s.posts.createIndex({ publishAt: 1 });
    s.versions = new Map();
    for (let c = 0; c < maxClients; c++) {
      const docs = Array.from({ length: POSTS_PER_CLIENT }, (_, i) => post(postId(c, i), workspaceOf(c), 0));
      await s.posts.insertMany(docs);
      for (const d of docs) s.versions.set(d._id, 0);
    }
    // Other workspaces' posts, so the posts table has a realistic size for its plans.
    for (let k = 0; k < 5; k++) {
      await s.posts.insertMany(Array.from({ length: 1000 }, (_, i) => post(`o-${k}-${i}`, `ws-other-${i % 50}`, 0)));
    }
    await s.db.command({ ping: 1 });
  }
  // Statistics for the plans, as autovacuum would have them on a database in use.
  for (const s of servers) psql(s.pgDb, '-c', 'ANALYZE');
  const results = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const w of workloads) {
      for (const clients of CLIENTS) {
        const order = [...servers.keys()].map((k) => (k + round - 1) % servers.length).map((k) => servers[k]);
        for (const s of round % 2 ? order : order.reverse()) {
          console.error(`round ${round}/${ROUNDS}: ${w.label}, ${clients} client(s), ${s.label}`);
          const stats = { wins: 0 };
          await s.col.updateOne({ _id: 'hot' }, { $set: { v: 0 } }, { upsert: true });
          const m = await measure(s, w.key, clients, w.op(s, stats));
          const kept = (await s.col.findOne({ _id: 'hot' })).v;
          const r = (results[`${w.key}|${clients}|${s.label}`] ??= { ops: [], p99: [], fdbMs: [], pgMs: [], lost: 0, wins: 0 });
          for (const k of ['ops', 'p99', 'fdbMs', 'pgMs']) r[k].push(m[k]);
          if (w.key === 'cas-hot') {
            r.wins += stats.wins;
            r.lost += stats.wins - kept;
          }
        }
      }
    }
  }
  const avg = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  const rows = [];
  const base = servers[0].label;
  for (const w of workloads) {
    for (const clients of CLIENTS) {
      const row = { workload: w.label, clients };
      for (const s of servers) {
        const r = results[`${w.key}|${clients}|${s.label}`];
        const b = results[`${w.key}|${clients}|${base}`];
        row[`${s.label} ops/s`] = fmt(avg(r.ops), 0);
        row[`${s.label} CPU ms/op (fdb+pg)`] = `${fmt(avg(r.fdbMs) + avg(r.pgMs), 3)} (${fmt(avg(r.fdbMs), 3)}+${fmt(avg(r.pgMs), 3)})`;
        if (s.label !== base) {
          row[`${s.label}/${base} ops`] = fmt(avg(r.ops) / avg(b.ops));
          row[`${s.label}/${base} CPU`] = fmt((avg(r.fdbMs) + avg(r.pgMs)) / (avg(b.fdbMs) + avg(b.pgMs)));
        }
        if (w.key === 'cas-hot') row[`${s.label} wins lost`] = `${r.lost} of ${r.wins}`;
      }
      rows.push(row);
    }
  }
  console.log(`\nFerretDB v1.24.2 builds ${servers.map((s) => s.label).join(' vs ')}, ${ROUNDS} rounds of ${SECONDS} s, alternating\n`);
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  console.log(
    table(
      rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? '']))),
      columns,
    ),
  );
} finally {
  for (const s of servers) await s.stop().catch(() => undefined);
}
