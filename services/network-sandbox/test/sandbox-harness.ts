import { randomBytes } from 'node:crypto';
import { setLogLevel } from '@social/logger';
import { closeMongo, connectMongo } from '@social/mongo';
import { type NetworkCode, SandboxAdapter } from '@social/networks';
import { readConfig } from '../src/config';
import { NetworkSandboxService } from '../src/network-sandbox-service';

setLogLevel('warn');

export interface Sandbox {
  service: NetworkSandboxService;
  url: string;
  adapter: SandboxAdapter;
  /** Plain HTTP to the sandbox, for what the adapter does not expose (admin, tokens). */
  http(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  token(net: NetworkCode, accountId: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The real service on port 0 with a database of its own, dropped on stop, so test files run side
 * by side without seeing each other's posts or tokens.
 */
export async function startSandbox(env: Record<string, string> = {}, adapterTimeoutMs = 5000): Promise<Sandbox> {
  const prefix = `t_${randomBytes(5).toString('hex')}_`;
  const cfg = readConfig({
    ...process.env,
    NETWORK_SANDBOX_PORT: '0',
    MONGO_DB_PREFIX: prefix,
    SANDBOX_ADMIN: 'true',
    SHUTDOWN_GRACE_MS: '2000',
    ...env,
  });
  const service = await NetworkSandboxService.create(cfg);
  await service.start();
  const url = service.url;
  const adapter = new SandboxAdapter({ baseUrl: url, timeoutMs: adapterTimeoutMs });

  const http: Sandbox['http'] = async (method, path, body, headers = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };

  return {
    service,
    url,
    adapter,
    http,
    async token(net, accountId) {
      const r = await http('POST', `/sandbox/${net}/accounts/${accountId}/tokens`);
      if (r.status !== 201) throw new Error(`token for ${accountId}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.accessToken as string;
    },
    async stop() {
      await adapter.close();
      await service.destroy();
      const conn = await connectMongo({ url: cfg.mongoUrl, dbName: cfg.dbName });
      await conn.dropDatabase();
      await closeMongo(conn);
    },
  };
}

/** The NetworkError a call fails with (the test fails if it resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}
