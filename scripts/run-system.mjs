#!/usr/bin/env node
// `pnpm start`: the whole system on one machine. Makes the infrastructure reachable
// (scripts/infra.sh), starts every service as its own process in the order of system.json,
// prints their JSON logs as readable lines, and stops everything cleanly on Ctrl-C.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureLocalSecrets, secretsFor } from './local-secrets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { processes } = JSON.parse(readFileSync(path.join(root, 'system.json'), 'utf8'));
const colors = [36, 32, 33, 35, 34, 91, 92, 93, 94];
const width = Math.max(...processes.map((p) => p.name.length));
const raw = process.env.LOG_FORMAT === 'json';

execFileSync('bash', [path.join(root, 'scripts/infra.sh')], { stdio: 'inherit' });
// Made once per install (.local/secrets.env, owner-only); each process gets only its own private key.
const secrets = ensureLocalSecrets();

// Every process learns where the others listen from the same defaults or overrides.
// Development mode: the network sandbox's failure injection is on (it warns at start).
const env = { SANDBOX_ADMIN: 'true', ...process.env };
// Media files: a data directory of this checkout (MEDIA_STORE=fs, the default), or the local
// S3-compatible store infra.sh runs (MEDIA_STORE=s3) with the credentials it made.
env.MEDIA_DATA_DIR ??= path.join(root, '.local', 'media-files');
if (env.MEDIA_STORE === 's3' && !env.S3_ENDPOINT && !env.S3_ACCESS_KEY_ID) Object.assign(env, localS3Credentials());
for (const p of processes) {
  const port = env[p.portEnv] ?? String(p.port);
  env[p.portEnv] = port;
  if (p.urlEnv && !env[p.urlEnv]) env[p.urlEnv] = `http://127.0.0.1:${port}`;
  if (p.grpc) {
    env[p.grpc.portEnv] ??= String(p.grpc.port);
    env[p.grpc.urlEnv] ??= `127.0.0.1:${env[p.grpc.portEnv]}`;
  }
}

function pretty(name, color, line) {
  const tag = `\x1b[${color}m${name.padEnd(width)}\x1b[0m |`;
  if (raw) return `${tag} ${line}`;
  try {
    const { timestamp, level, message, service: _s, component, ...rest } = JSON.parse(line);
    const time = String(timestamp ?? '').slice(11, 23);
    const lvl = level === 'error' ? '\x1b[31mERR\x1b[0m' : level === 'warn' ? '\x1b[33mWRN\x1b[0m' : level.slice(0, 3).toUpperCase();
    const fields = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join(' ');
    return `${tag} ${time} ${lvl} [${component ?? '-'}] ${message}${fields ? ` ${fields}` : ''}`;
  } catch {
    return `${tag} ${line}`;
  }
}

const children = [];
let stopping = false;

async function waitReady(p) {
  const url = `http://127.0.0.1:${env[p.portEnv]}/readyz`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

for (const [i, p] of processes.entries()) {
  if (stopping) break;
  const child = spawn(process.execPath, [path.join(root, p.entry)], {
    env: { ...env, ...secretsFor(p.name, secrets, env), SERVICE_NAME: p.name },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const color = colors[i % colors.length];
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => console.log(pretty(p.name, color, line)));
  }
  child.on('exit', (code, signal) => {
    console.log(pretty(p.name, color, `exited (${signal ?? code})`));
    if (!stopping) stopAll(1);
  });
  children.push(child);
  if (!(await waitReady(p))) {
    console.error(`${p.name} did not become ready; stopping.`);
    stopAll(1);
    break;
  }
}

if (!stopping) {
  console.log(`\nSystem ready. Gateway: http://127.0.0.1:${env.GATEWAY_PORT}/v2  (Ctrl-C stops everything)`);
  console.log('Create credentials with: pnpm admin workspace create --name "My workspace" --json\n');
}

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  // Reverse order: the gateway stops taking requests before the services behind it go away.
  for (const c of [...children].reverse()) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    process.exit(code);
  }, 15000).unref();
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

function localS3Credentials() {
  const file = execFileSync('bash', [path.join(root, 'scripts/infra.sh'), 's3-credentials'])
    .toString()
    .trim();
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('=', 2)),
  );
}
