// `pnpm bench publish` (or `node bench/publish.mjs`): posts × 1 profile due at the same moment,
// sandbox publish latency 100 ms, in three scenarios:
// - on-time: 100 and 1,000 posts (BENCH_ONTIME_POSTS), 1 worker, PUBLISHER_CONCURRENCY 128 (the default):
//   lateness when throughput allows, and from what batch size on it no longer does;
// - network-bound: 1 and then 4 jobs in flight per worker (300 and 1,200 posts), each with 1 and
//   then 2 workers: a worker's ceiling is 10 publishes/s per job in flight (100 ms each), so with
//   few in flight the network is the bottleneck and a second worker should double throughput;
//   with more, the machine becomes it;
// - burst: 10,000 posts (BENCH_POSTS), 128 per worker (PUBLISHER_CONCURRENCY), with 1 and then
//   2 workers: what the machine allows.
//
// The whole publishing path is real: posts are created and scheduled through the gateway, the
// posts service's dispatcher sends the jobs when they are due, publisher workers publish on the
// network sandbox, and the posts service records each result. Reported per round:
// - publishes/s: N / (last network publish − due time);
// - lateness p50/p99/max: network publish time − due time (it includes the 100 ms latency);
// - settled: when the last post showed PUBLISHED in the posts service, after the due time;
// - database operations per publish: every command our services sent to their databases from the
//   due time until settled (the driver's command monitoring, `mongo_commands_total` on /metrics of
//   posts, publisher, media and competitors), divided by the posts; in runs with one worker, whose
//   metrics the bench reads. The sandbox's own writes (it stands in for the network) are apart.
// Environment: BENCH_SCENARIOS (e.g. "on-time,network-bound"), BENCH_POSTS, BENCH_ONTIME_POSTS
// (e.g. "25,50,100"), BENCH_LATENCY_MS, BENCH_WORKERS (e.g. "1,2"), PUBLISHER_CONCURRENCY;
// BENCH_TIMELINE=1 prints, every half second of each round, how many jobs posts had sent, the
// publisher had taken, the network had stored and posts had applied results of (where time goes).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSince, cpuSnapshot } from './lib/cpu.mjs';
import { table } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { TestSystem, createTestVhost, testEnv, sleep } = require('../packages/testkit/dist');

const POSTS = Number(process.env.BENCH_POSTS ?? 10000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 100);
const CONCURRENCY = process.env.PUBLISHER_CONCURRENCY ?? '128';
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const CLIENTS = 16; // connections creating and scheduling posts
const ONTIME_POSTS = (process.env.BENCH_ONTIME_POSTS ?? '100,1000').split(',').map(Number);
const SCENARIOS = [
  ...ONTIME_POSTS.map((posts) => ({ name: 'on-time', posts, concurrency: CONCURRENCY, workers: [1] })),
  { name: 'network-bound', posts: 300, concurrency: '1', workers: WORKER_COUNTS },
  { name: 'network-bound', posts: 1200, concurrency: '4', workers: WORKER_COUNTS },
  { name: 'burst', posts: POSTS, concurrency: CONCURRENCY, workers: WORKER_COUNTS },
].filter((sc) => !process.env.BENCH_SCENARIOS || process.env.BENCH_SCENARIOS.split(',').includes(sc.name));

const progress = (msg) => console.error(`[bench publish ${new Date().toISOString().slice(11, 19)}] ${msg}`);

progress('starting the system (network sandbox, posts, media, competitors, publisher, gateway)...');
const vhost = await createTestVhost(testEnv().AMQP_URL);
const system = await TestSystem.start(
  {
    AMQP_URL: vhost.amqpUrl,
    PLANS: JSON.stringify({ free: { competitors: 5, requestsPerWindow: 100000000 } }),
    SANDBOX_ADMIN: 'true',
    LOG_LEVEL: 'warn',
    PUBLISHER_CONCURRENCY: CONCURRENCY,
  },
  ['network-sandbox', 'posts', 'media', 'competitors', 'publisher', 'gateway'],
);
const gw = `${system.gatewayUrl}/v2`;
const extraWorkers = [];

async function call(creds, method, p, body) {
  const res = await fetch(`${gw}${p}`, {
    method,
    headers: { 'X-API-ID': creds.apiId, 'X-API-KEY': creds.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function sandbox(method, p, body) {
  const res = await fetch(`${system.env.NETWORK_SANDBOX_URL}${p}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return res.json();
}

/** Runs `fn(i)` for i in [from, to) over CLIENTS parallel loops. */
async function inParallel(from, to, fn) {
  let next = from;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < to) await fn(next++);
    }),
  );
}

/** Creates and schedules N posts for one due time, chosen from the measured creation rate. */
async function prepare(creds, profileId, run, posts) {
  const create = (i, publishAt) =>
    call(creds, 'POST', '/posts', { type: 'STATUS', profileIds: [profileId], publishAt, captions: [{ plainText: `${run} post ${i}` }] });
  const ids = [];
  // Calibration: the first posts go out two hours ahead and are re-timed once the due time is known.
  const calibration = Math.min(posts, 200);
  const far = new Date(Date.now() + 2 * 3600_000).toISOString();
  const t0 = Date.now();
  await inParallel(0, calibration, async (i) => {
    ids[i] = (await create(i, far)).id;
  });
  const perPostMs = (Date.now() - t0) / calibration;
  // The rest is created and scheduled (two requests each, slower as the workspace grows): measured
  // at about three times the calibration pace per post; 4.5 leaves a margin.
  const dueAt = new Date(Date.now() + perPostMs * posts * 4.5 + 20_000);
  dueAt.setUTCMilliseconds(0);
  const due = dueAt.toISOString();
  progress(`${run}: ${(1000 / perPostMs).toFixed(0)} posts/s created; all ${posts} due at ${due}`);
  await inParallel(0, calibration, async (i) => {
    await call(creds, 'PUT', `/posts/${ids[i]}`, { publishAt: due });
    await call(creds, 'PATCH', `/posts/${ids[i]}/stage/schedule`);
  });
  await inParallel(calibration, posts, async (i) => {
    ids[i] = (await create(i, due)).id;
    await call(creds, 'PATCH', `/posts/${ids[i]}/stage/schedule`);
    if ((i + 1) % 1000 === 0) progress(`${run}: ${i + 1} scheduled`);
  });
  if (Date.now() >= dueAt.getTime()) throw new Error(`preparing took longer than planned: the posts were due at ${due}`);
  return { ids, dueAt };
}

/** Posts the sandbox stored since it started (`sandbox_posts_stored_total`, every network). */
async function storedOnNetwork() {
  const text = await (await fetch(`${system.url('network-sandbox')}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^sandbox_posts_stored_total\{[^}]*\} (\d+)/gm)) total += Number(m[1]);
  return total;
}

/** Waits until the network has published every post, then until posts shows each PUBLISHED. */
async function observe(creds, ids, dueAt, run) {
  const mine = (published) => published.items.filter((it) => it.caption?.startsWith(`${run} post `));
  let items = [];
  const deadline = Date.now() + 30 * 60_000;
  // Progress from the sandbox's counter of stored posts: the listing, and on FerretDB even the
  // estimated count, read the whole collection, which would load the machine being measured.
  const target = (await storedOnNetwork()) + ids.length;
  await sleep(Math.max(0, dueAt.getTime() - Date.now()));
  const groups = cpuGroups();
  const cpuAtDue = cpuSnapshot(groups);
  const timeline = process.env.BENCH_TIMELINE ? followTimeline(dueAt, run) : null;
  for (let total = 0; total < target;) {
    if (Date.now() > deadline) throw new Error(`only ${total - target + ids.length} of ${ids.length} published after 30 minutes`);
    await sleep(1000);
    total = await storedOnNetwork();
    progress(`${run}: ${total - target + ids.length} published on the network`);
  }
  const cpu = cpuSince(cpuAtDue, groups);
  await timeline?.stop();
  items = mine(await sandbox('GET', `/sandbox/admin/published`));
  // Posts shows the outcome once it has applied every result (each workspace is one round).
  const count = async (stages) => (await call(creds, 'GET', `/posts?stages=${stages}&take=1`)).total;
  while ((await count('PUBLISHED,PUBLISHED_FAILED')) < ids.length) {
    if (Date.now() > deadline) throw new Error('posts not all settled after 30 minutes');
    await sleep(2000);
  }
  const failed = await count('PUBLISHED_FAILED');
  const settledMs = Date.now() - dueAt.getTime();
  return { items, failed, settledMs, cpu };
}

/** Sum of a counter's series on a process's /metrics whose labels match `labels`. */
async function counterOf(name, metric, labels = /./) {
  const text = await (await fetch(`${system.url(name)}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} (\\d+)`, 'gm'))) if (labels.test(m[1])) total += Number(m[2]);
  return total;
}

/** Samples the pipeline's counters every 500 ms from the due time until stopped; prints one line per sample. */
function followTimeline(dueAt, run) {
  let stopped = false;
  const sample = async () => ({
    sent: await counterOf('posts', 'queue_messages_published_total', /type="post\.publish\.requested",outcome="confirmed"/),
    taken: await counterOf('publisher', 'queue_messages_consumed_total', /queue="publisher\.publish-jobs"/),
    stored: await storedOnNetwork(),
    applied: await counterOf('posts', 'queue_messages_consumed_total', /queue="posts\.publish-results"/),
  });
  const done = (async () => {
    const base = await sample();
    while (!stopped) {
      await sleep(500);
      const s = await sample();
      const t = ((Date.now() - dueAt.getTime()) / 1000).toFixed(1);
      progress(
        `${run} t=${t}s sent ${s.sent - base.sent} taken ${s.taken - base.taken} stored ${s.stored - base.stored} applied ${s.applied - base.applied}`,
      );
    }
  })();
  return { stop: () => ((stopped = true), done) };
}

const OUR_SERVICES = ['posts', 'publisher', 'media', 'competitors'];
/** Processes whose warnings the bench reports (they log at warn): a slow round then says why. */
const LOGGING = [...OUR_SERVICES, 'network-sandbox', 'gateway'];

/** Warnings and errors each process logged since `since` (ms), counted per process, level and message. */
function warningsSince(since) {
  const counts = new Map();
  for (const name of LOGGING) {
    for (const line of system.logOf(name)) {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // not one of our JSON lines (a runtime warning, say): the process's own stderr shows it
      }
      if (!['warn', 'error'].includes(entry.level) || !(Date.parse(entry.timestamp) >= since)) continue;
      const key = `${name}|${entry.level}|${entry.message}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].map(([key, count]) => {
    const [proc, level, message] = key.split('|');
    return { process: proc, level, message, count };
  });
}

/** mongo_commands_total of each process, as `process|command` → count. */
async function dbCommands() {
  const out = new Map();
  for (const name of [...OUR_SERVICES, 'network-sandbox']) {
    const text = await (await fetch(`${system.url(name)}/metrics`)).text();
    for (const m of text.matchAll(/^mongo_commands_total\{([^}]*)\} (\d+(?:\.\d+)?)/gm)) {
      const command = /command="([^"]+)"/.exec(m[1])?.[1];
      const key = `${name}|${command}`;
      out.set(key, (out.get(key) ?? 0) + Number(m[2]));
    }
  }
  return out;
}

function dbDelta(before, after) {
  const out = new Map();
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) > 0) out.set(k, v - (before.get(k) ?? 0));
  return out;
}

const rows = [];
const cpuRows = [];
const dbRows = [];
const sum = (m, pick) => [...m].filter(([k]) => pick(k)).reduce((n, [, v]) => n + v, 0);
const ratios = [];
const warningRows = [];
try {
  await sandbox('POST', '/sandbox/admin/latency', { publishMs: LATENCY_MS });
  for (const sc of SCENARIOS) {
    const throughput = {};
    for (const workers of sc.workers) {
      await setWorkers(workers, sc.concurrency);
      const run = `${sc.name}-w${workers}-${Date.now().toString(36)}`;
      const creds = await system.admin(['workspace', 'create', '--name', `bench ${run}`, '--sandbox-profiles', '--json']);
      const profileId = creds.profiles.find((p) => p.net.code === 'generalNet').id;
      const { ids, dueAt } = await prepare(creds, profileId, run, sc.posts);
      await sleep(Math.max(0, dueAt.getTime() - Date.now() - 200));
      const dbBefore = await dbCommands();
      const logMark = Date.now();
      const { items, failed, settledMs, cpu } = await observe(creds, ids, dueAt, run);
      const db = dbDelta(dbBefore, await dbCommands());
      const label = { scenario: sc.name, workers, 'concurrency/worker': sc.concurrency };
      for (const w of warningsSince(logMark)) warningRows.push({ ...label, posts: sc.posts, ...w });
      cpuRows.push({
        ...label,
        window: `${cpu.window.toFixed(0)} s`,
        ...Object.fromEntries(Object.entries(cpu.seconds).map(([g, v]) => [g, `${((v / cpu.window) * 100).toFixed(0)}%`])),
      });
      const lateness = items.map((it) => Date.parse(it.publishedAt) - dueAt.getTime()).sort((a, b) => a - b);
      const pct = (p) => lateness[Math.min(lateness.length - 1, Math.floor((p / 100) * lateness.length))];
      const max = lateness[lateness.length - 1];
      throughput[workers] = sc.posts / (max / 1000);
      rows.push({
        ...label,
        posts: sc.posts,
        failed,
        duplicates: items.length - new Set(items.map((it) => it.clientKey)).size,
        'publishes/s': throughput[workers].toFixed(0),
        'late p50 (s)': (pct(50) / 1000).toFixed(2),
        'late p99 (s)': (pct(99) / 1000).toFixed(2),
        'late max (s)': (max / 1000).toFixed(2),
        'settled (s)': (settledMs / 1000).toFixed(1),
        'db ops/publish': workers === 1 ? (sum(db, (k) => OUR_SERVICES.includes(k.split('|')[0])) / sc.posts).toFixed(2) : '',
        'sandbox db ops/publish': (sum(db, (k) => k.startsWith('network-sandbox|')) / sc.posts).toFixed(2),
      });
      if (workers === 1) {
        dbRows.push({
          ...label,
          posts: sc.posts,
          ...Object.fromEntries(
            [...db]
              .filter(([k]) => !k.startsWith('network-sandbox|'))
              .sort()
              .map(([k, v]) => [k, (v / sc.posts).toFixed(2)]),
          ),
        });
      }
      progress(`${run}: ${JSON.stringify(rows[rows.length - 1])}`);
    }
    if (throughput[1] && throughput[2])
      ratios.push(`${sc.name} (${sc.concurrency} in flight per worker): ${(throughput[2] / throughput[1]).toFixed(2)}`);
  }
  console.log(
    `\npublish: posts × 1 profile due at once, sandbox latency ${LATENCY_MS} ms, through gateway, posts dispatcher, publisher workers, sandbox and results\n`,
  );
  console.log(table(rows, Object.keys(rows[0])));
  if (ratios.length > 0) console.log(`\nthroughput ratio 2 workers / 1 worker: ${ratios.join('; ')}`);
  if (dbRows.length > 0) {
    console.log('\ndatabase commands per publish, by process and command (1 worker):\n');
    const columns = [...new Set(dbRows.flatMap((r) => Object.keys(r)))];
    console.log(
      table(
        dbRows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? '']))),
        columns,
      ),
    );
  }
  console.log('\nCPU while publishing (100% = one core; the machine has 2):\n');
  console.log(table(cpuRows, Object.keys(cpuRows[0])));
  console.log('\nwarnings and errors logged while publishing:\n');
  console.log(warningRows.length > 0 ? table(warningRows, Object.keys(warningRows[0])) : 'none');
  const published = await sandbox('GET', '/sandbox/admin/published');
  console.log(`\nsandbox: ${published.total} posts, ${published.duplicateClientKeys.length} client keys with more than one post`);
} catch (err) {
  for (const name of ['gateway', 'posts', 'publisher'])
    console.error(`--- last log lines of ${name}\n${system.logOf(name).slice(-15).join('\n')}`);
  throw err;
} finally {
  for (const w of extraWorkers) await stopWorker(w);
  await system.destroy().catch(() => undefined);
  await vhost.drop();
}

/** Processes whose CPU the bench reports: ours, the network stand-in and the infrastructure. */
function cpuGroups() {
  const ours = (name) => {
    const pid = system.pid(name);
    return (p) => p.pid === pid;
  };
  const workerPids = () => new Set([system.pid('publisher'), ...extraWorkers.map((w) => w.pid)]);
  const workers = workerPids();
  return {
    posts: ours('posts'),
    publisher: (p) => workers.has(p.pid),
    sandbox: ours('network-sandbox'),
    'gateway+others': (p) => [system.pid('gateway'), system.pid('media'), system.pid('competitors')].includes(p.pid),
    ferretdb: (p) => /\bferretdb\b.*--listen-addr/.test(p.cmdline),
    postgres: (p) => p.cmdline.startsWith('postgres'),
    rabbitmq: (p) => p.cmdline.includes('beam.smp'),
  };
}

/** Runs `count` publisher workers with `concurrency` each (the system's own plus extra ones). */
async function setWorkers(count, concurrency) {
  if (system.env.PUBLISHER_CONCURRENCY !== concurrency) {
    while (extraWorkers.length > 0) await stopWorker(extraWorkers.pop());
    await system.stopProcess('publisher');
    system.env.PUBLISHER_CONCURRENCY = concurrency;
    await system.startProcess('publisher');
  }
  while (extraWorkers.length > count - 1) await stopWorker(extraWorkers.pop());
  while (extraWorkers.length < count - 1) extraWorkers.push(await startWorker(system.env, extraWorkers.length + 2));
}

async function startWorker(env, n) {
  const child = spawn(process.execPath, [path.join(ROOT, 'services/publisher/dist/index.js')], {
    env: { ...process.env, ...env, PUBLISHER_PORT: '0', SERVICE_NAME: `publisher-${n}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await sleep(3000); // connects, declares, subscribes
  if (child.exitCode !== null) throw new Error(`worker ${n} exited with ${child.exitCode}`);
  return child;
}

async function stopWorker(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
