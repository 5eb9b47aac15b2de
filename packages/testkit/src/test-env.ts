import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import mongoose from 'mongoose';
import { randomSecret, signTestToken, testKeyEnv } from './test-keys';

// Made once per test process, so in-process services and the processes a test starts agree.
const STORAGE_SIGNING_SECRET = randomSecret();
const PROFILE_TOKEN_KEY = randomSecret();
const WEBHOOKS_SECRET_KEY = randomSecret();

interface SystemProcess {
  portEnv: string;
  urlEnv?: string;
  grpc?: { portEnv: string; urlEnv: string };
}

/**
 * Tests run beside a running system (`pnpm start` holds the default ports): every listening port
 * defaults to 0 (any free one) and every address of another process to one where nothing listens,
 * so a test reaches only what it started itself.
 */
function isolatedPorts(): Record<string, string> {
  const file = path.resolve(__dirname, '../../../system.json');
  const { processes } = JSON.parse(fs.readFileSync(file, 'utf8')) as { processes: SystemProcess[] };
  const env: Record<string, string> = {};
  for (const p of processes) {
    env[p.portEnv] = '0';
    if (p.urlEnv) env[p.urlEnv] = NOTHING_LISTENS;
    if (p.grpc) {
      env[p.grpc.portEnv] = '0';
      env[p.grpc.urlEnv] = '127.0.0.1:1';
    }
  }
  return env;
}
const NOTHING_LISTENS = 'http://127.0.0.1:1';

/**
 * Infrastructure URLs (set by jest's global setup), ports of its own, and a database prefix unique
 * to this test file. Services log at `error` unless TEST_LOG_LEVEL or LOG_LEVEL says otherwise.
 */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...isolatedPorts(),
    MONGO_URL: process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/',
    AMQP_URL: process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672',
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    MONGO_DB_PREFIX: `t${randomBytes(4).toString('hex')}_`,
    ...testKeyEnv(),
    STORAGE_SIGNING_SECRET,
    PROFILE_TOKEN_KEY,
    WEBHOOKS_SECRET_KEY,
    // Failure injection in the network sandbox is for tests and development only.
    SANDBOX_ADMIN: 'true',
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? process.env['LOG_LEVEL'] ?? 'error',
    ...overrides,
  };
}

/** Headers a component test sends to a service directly, as the gateway would (its test key signs). */
export function internalHeaders(audience: string, workspaceId: string, extra: Record<string, string> = {}) {
  return {
    authorization: `Bearer ${signTestToken('gateway', audience, workspaceId)}`,
    'content-type': 'application/json',
    ...extra,
  };
}

/** Drops every database whose name starts with the prefix (test clean-up). */
export async function dropDatabases(mongoUrl: string, prefix: string): Promise<void> {
  const conn = await mongoose.createConnection(mongoUrl, { retryWrites: false }).asPromise();
  try {
    const { databases } = await conn.db!.admin().listDatabases();
    for (const d of databases) {
      if (d.name.startsWith(prefix)) await conn.useDb(d.name).dropDatabase();
    }
  } finally {
    await conn.close();
  }
}

/**
 * Where free ports are looked for: below the kernel's ephemeral range. A port the kernel hands out
 * (listen(0)) is one it also gives to outgoing connections, so between a test closing it and a
 * started process listening on it, a new connection to the database or broker could take it as its
 * local port (seen in CI: EADDRINUSE for a whole e2e file). Outgoing connections never use ports
 * below the range, so there only another listener can be in the way, and the bind below sees it.
 */
const PORT_FLOOR = 10000;
const ephemeralLow = (() => {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();
/** Ports this process handed out already: never twice, though a test may not be listening yet. */
const handedOut = new Set<number>();

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

const kernelPort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

/** A port nothing listens on, outside the ephemeral range where the machine allows it. */
export async function freePort(): Promise<number> {
  if (ephemeralLow - PORT_FLOOR >= 1000) {
    for (let i = 0; i < 100; i++) {
      const port = PORT_FLOOR + Math.floor(Math.random() * (ephemeralLow - PORT_FLOOR));
      if (handedOut.has(port) || !(await canListen(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  return kernelPort();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until fn returns a truthy value or the timeout passes. */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}
