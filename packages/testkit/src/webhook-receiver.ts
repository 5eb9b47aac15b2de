import https from 'node:https';
import type { AddressInfo } from 'node:net';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const selfsigned = require('selfsigned') as {
  generate(attrs: unknown[], opts: unknown): { private: string; cert: string };
};

export interface Received {
  at: number;
  /** The request path, so one receiver serves many endpoints. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered: a status, or 'timeout' when it never answered. */
  answer: number | 'timeout';
}

export type Behaviour = (body: any, n: number) => number | 'timeout';

/**
 * A real HTTPS receiver on 127.0.0.1 with a self-signed certificate. Its answer to each request
 * is decided by `behave` (200, 500, or 'timeout' to never answer); every request is recorded.
 */
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

export async function startWebhookReceiver(hostnames: string[]) {
  const pems = selfsigned.generate([{ name: 'commonName', value: 'webhook test receiver' }], {
    keySize: 2048,
    days: 1,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [...hostnames.map((value) => ({ type: 2, value })), { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const state = { behave: ((_body: any, _n: number) => 200) as Behaviour, latencyMs: 0 };
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: any = null;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = null;
      }
      const n = received.filter((r) => r.headers['webhook-id'] === req.headers['webhook-id']).length + 1;
      const answer = state.behave(parsed, n);
      received.push({ at: Date.now(), url: req.url ?? '', headers: req.headers as Record<string, string>, body, answer });
      if (answer === 'timeout') {
        hanging.add(res);
        return;
      }
      setTimeout(() => res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok'), state.latencyMs);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    ca: pems.cert,
    received,
    state,
    url: (host: string, path = '/hook') => `https://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
