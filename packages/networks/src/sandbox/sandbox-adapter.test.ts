import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runWithContext } from '@social/logger';
import { contentFingerprint } from '../adapter/content-fingerprint';
import { isNetworkError, NetworkError } from '../adapter/network-error';
import { parseRetryAfter } from '../adapter/classify-http';
import { createNetworkAdapter } from '../create-network-adapter';
import { SandboxAdapter } from './sandbox-adapter';

// A scripted stand-in for the sandbox, so each answer (or silence) is exactly what a test needs.
type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
let handler: Handler;
let server: http.Server;
let baseUrl: string;
const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
});

const reply =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, _b, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const errorReply = (status: number, code: string, headers: Record<string, string> = {}) =>
  reply(status, { error: { code, message: `sandbox says ${code}`, details: [{ path: '/caption', message: 'too long' }] } }, headers);

const publishInput = {
  net: 'microblogNet' as const,
  accountId: 'mb-own-1',
  accessToken: 'tok',
  idempotencyKey: 'pub-1',
  post: { type: 'STATUS' as const, caption: 'hello', firstComment: null, media: [], links: [], settings: null },
};
// professionalNet keeps idempotency keys (24 h), so lookups by key are asked of it.
const lookupInput = { net: 'professionalNet' as const, accountId: 'pro-own-1', accessToken: 'tok', idempotencyKey: 'pub-1' };
const metricsInput = {
  net: 'generalNet' as const,
  accountId: 'gn-own-1',
  since: '2026-01-01',
  until: '2026-01-02',
  metrics: ['gn-daily-page-fans'],
};

async function failure(p: Promise<unknown>): Promise<NetworkError> {
  try {
    await p;
  } catch (err) {
    if (isNetworkError(err)) return err;
    throw err;
  }
  throw new Error('expected a NetworkError');
}

describe('SandboxAdapter', () => {
  let adapter: SandboxAdapter;
  beforeEach(() => {
    adapter = new SandboxAdapter({ baseUrl, timeoutMs: 300 });
  });
  afterEach(() => adapter.close());

  it('publishes with the token and idempotency key, and says when the answer was a replay', async () => {
    handler = reply(201, { networkPostId: 'np-1', publishedAt: '2026-01-01T00:00:00.000Z' });
    await expect(adapter.publish(publishInput)).resolves.toEqual({
      networkPostId: 'np-1',
      publishedAt: '2026-01-01T00:00:00.000Z',
      replayed: false,
    });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/sandbox/microblogNet/accounts/mb-own-1/posts' });
    expect(seen[0]!.headers['authorization']).toBe('Bearer tok');
    expect(seen[0]!.headers['idempotency-key']).toBe('pub-1');
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ type: 'STATUS', caption: 'hello', media: [] });

    handler = reply(200, { networkPostId: 'np-1', publishedAt: '2026-01-01T00:00:00.000Z' });
    await expect(adapter.publish(publishInput)).resolves.toMatchObject({ networkPostId: 'np-1', replayed: true });
  });

  it('sends the request id of the current context as X-Request-Id, on publishes and reads alike', async () => {
    handler = reply(201, { networkPostId: 'np-3', publishedAt: '2026-01-01T00:00:00.000Z' });
    await runWithContext({ requestId: 'req-trace-1' }, () => adapter.publish(publishInput));
    handler = reply(404, { error: { code: 'POST_NOT_FOUND', message: 'none' } });
    await runWithContext({ requestId: 'req-trace-2' }, () => adapter.lookupPublished(lookupInput));
    await adapter.lookupPublished(lookupInput);

    expect(seen.map((s) => s.headers['x-request-id'])).toEqual(['req-trace-1', 'req-trace-2', undefined]);
  });

  it('sends media given as bytes as their size and SHA-256', async () => {
    handler = reply(201, { networkPostId: 'np-2', publishedAt: '2026-01-01T00:00:00.000Z' });
    const bytes = new TextEncoder().encode('fake image');
    await adapter.publish({
      ...publishInput,
      post: {
        ...publishInput.post,
        type: 'MEDIA',
        media: [
          { mimeType: 'image/png', fetchBytes: async () => bytes },
          { mimeType: 'image/jpeg', url: 'https://cdn.example/a.jpg' },
        ],
      },
    });
    expect(JSON.parse(seen[0]!.body).media).toEqual([
      { mimeType: 'image/png', sha256: createHash('sha256').update(bytes).digest('hex'), sizeBytes: bytes.byteLength },
      { mimeType: 'image/jpeg', url: 'https://cdn.example/a.jpg' },
    ]);
  });

  it('classifies 429 as RATE_LIMITED with the Retry-After delay', async () => {
    handler = errorReply(429, 'RATE_LIMITED', { 'retry-after': '7' });
    const err = await failure(adapter.publish(publishInput));
    expect(err).toMatchObject({
      kind: 'RATE_LIMITED',
      retryable: true,
      retryAfterMs: 7000,
      upstreamStatus: 429,
      code: 'NETWORK_RATE_LIMITED',
    });
  });

  it.each([500, 502, 503, 504])('classifies %i of a read as TRANSIENT and retryable', async (status) => {
    handler = errorReply(status, 'SERVER_ERROR');
    expect(await failure(adapter.dailyMetrics(metricsInput))).toMatchObject({ kind: 'TRANSIENT', retryable: true, upstreamStatus: status });
  });

  it.each([500, 502, 504])('classifies %i of a publish as UNKNOWN_OUTCOME: the post may have been stored', async (status) => {
    handler = errorReply(status, 'SERVER_ERROR');
    expect(await failure(adapter.publish(publishInput))).toMatchObject({
      kind: 'UNKNOWN_OUTCOME',
      retryable: true,
      upstreamStatus: status,
      code: 'NETWORK_UNKNOWN_OUTCOME',
    });
  });

  it('classifies 503 and 408 of a publish as TRANSIENT: the network did not act', async () => {
    handler = errorReply(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '2' });
    expect(await failure(adapter.publish(publishInput))).toMatchObject({
      kind: 'TRANSIENT',
      retryable: true,
      upstreamStatus: 503,
      retryAfterMs: 2000,
    });
    handler = errorReply(408, 'REQUEST_TIMEOUT');
    expect(await failure(adapter.publish(publishInput))).toMatchObject({ kind: 'TRANSIENT', retryable: true, upstreamStatus: 408 });
  });

  it('classifies 409 IDEMPOTENCY_KEY_REUSED as DUPLICATE (status 409, not retryable), other 409s as REJECTED', async () => {
    handler = errorReply(409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await failure(adapter.publish(publishInput))).toMatchObject({
      kind: 'DUPLICATE',
      retryable: false,
      status: 409,
      code: 'NETWORK_DUPLICATE',
      upstreamStatus: 409,
      upstreamCode: 'IDEMPOTENCY_KEY_REUSED',
    });
    handler = errorReply(409, 'CONFLICT');
    expect(await failure(adapter.publish(publishInput))).toMatchObject({ kind: 'REJECTED', retryable: false });
  });

  it('classifies 401 as AUTH_REVOKED, not retryable', async () => {
    handler = errorReply(401, 'TOKEN_REVOKED');
    expect(await failure(adapter.publish(publishInput))).toMatchObject({
      kind: 'AUTH_REVOKED',
      retryable: false,
      upstreamCode: 'TOKEN_REVOKED',
    });
  });

  it('classifies 422 and 400 as REJECTED with the network details', async () => {
    handler = errorReply(422, 'CONTENT_REJECTED');
    expect(await failure(adapter.publish(publishInput))).toMatchObject({
      kind: 'REJECTED',
      retryable: false,
      details: [{ path: '/caption', message: 'too long' }],
      message: expect.stringContaining('sandbox says CONTENT_REJECTED'),
    });
    handler = errorReply(400, 'VALIDATION_FAILED');
    expect(await failure(adapter.dailyMetrics(metricsInput))).toMatchObject({ kind: 'REJECTED' });
  });

  it('returns null from lookupPublished for an unknown key, but NOT_FOUND for an unknown account', async () => {
    handler = errorReply(404, 'POST_NOT_FOUND');
    await expect(adapter.lookupPublished(lookupInput)).resolves.toBeNull();
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/sandbox/professionalNet/accounts/pro-own-1/posts/by-key/pub-1' });
    handler = errorReply(404, 'ACCOUNT_NOT_FOUND');
    expect(await failure(adapter.lookupPublished(lookupInput))).toMatchObject({ kind: 'NOT_FOUND', retryable: false });
  });

  it('refuses lookupPublished on a network without idempotency keys, without calling it', async () => {
    handler = reply(200, { networkPostId: 'np-1', publishedAt: '2026-01-01T00:00:00.000Z' });
    expect(await failure(adapter.lookupPublished(publishInput))).toMatchObject({
      kind: 'REJECTED',
      retryable: false,
      upstreamCode: 'NOT_SUPPORTED',
      operation: 'lookupPublished',
    });
    expect(seen).toEqual([]);
  });

  it('lists recent posts with their content fingerprints, newest first as the network pages them', async () => {
    const sentPost = {
      type: 'LINK' as const,
      caption: 'Read this',
      firstComment: null,
      media: [{ mimeType: 'image/png', url: 'https://storage.example/p.png?sig=abc', sizeBytes: 10 }],
      links: [{ link: 'https://blog.example/post', title: 'Post', imageUrl: 'https://storage.example/p.png?sig=abc' }],
      settings: null,
    };
    handler = reply(200, {
      items: [
        {
          networkPostId: 'np-2',
          publishedAt: '2026-01-01T10:00:00.000Z',
          type: 'LINK',
          caption: 'Read this',
          firstComment: null,
          media: [{ mimeType: 'image/png' }],
          links: [{ link: 'https://blog.example/post', title: 'Post', description: null }],
        },
        {
          networkPostId: 'np-1',
          publishedAt: '2026-01-01T09:00:00.000Z',
          type: 'STATUS',
          caption: 'Other',
          firstComment: null,
          media: [],
          links: [],
        },
      ],
      nextCursor: 'c2',
    });
    const page = await adapter.recentPosts({
      net: 'microblogNet',
      accountId: 'mb-own-1',
      accessToken: 'tok',
      since: '2026-01-01T00:00:00.000Z',
      cursor: 'c1',
      limit: 2,
    });
    expect(page).toEqual({
      items: [
        { networkPostId: 'np-2', publishedAt: '2026-01-01T10:00:00.000Z', fingerprint: contentFingerprint(sentPost) },
        {
          networkPostId: 'np-1',
          publishedAt: '2026-01-01T09:00:00.000Z',
          fingerprint: expect.not.stringMatching(contentFingerprint(sentPost)),
        },
      ],
      nextCursor: 'c2',
    });
    expect(seen[0]!.url).toBe('/sandbox/microblogNet/accounts/mb-own-1/posts?since=2026-01-01T00%3A00%3A00.000Z&cursor=c1&limit=2');
    expect(seen[0]!.headers['authorization']).toBe('Bearer tok');

    handler = reply(200, { items: [{ networkPostId: 'np-3' }], nextCursor: null });
    expect(
      await failure(
        adapter.recentPosts({ net: 'microblogNet', accountId: 'mb-own-1', accessToken: 'tok', since: '2026-01-01T00:00:00.000Z' }),
      ),
    ).toMatchObject({ kind: 'TRANSIENT', operation: 'recentPosts' });
    handler = errorReply(500, 'SERVER_ERROR');
    expect(
      await failure(
        adapter.recentPosts({ net: 'microblogNet', accountId: 'mb-own-1', accessToken: 'tok', since: '2026-01-01T00:00:00.000Z' }),
      ),
    ).toMatchObject({ kind: 'TRANSIENT' });
  });

  it('reports a publish that timed out after it was sent as UNKNOWN_OUTCOME', async () => {
    handler = () => undefined; // never answers
    const started = Date.now();
    const err = await failure(adapter.publish(publishInput));
    expect(err).toMatchObject({ kind: 'UNKNOWN_OUTCOME', retryable: true, operation: 'publish' });
    // The server never answers: only the adapter's 300 ms timeout can end the call.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports a read that timed out as TRANSIENT', async () => {
    handler = () => undefined;
    expect(await failure(adapter.dailyMetrics(metricsInput))).toMatchObject({ kind: 'TRANSIENT', operation: 'dailyMetrics' });
  });

  it('reports a publish that could not connect as TRANSIENT: nothing was sent', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const offline = new SandboxAdapter({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1000 });
    try {
      expect(await failure(offline.publish(publishInput))).toMatchObject({ kind: 'TRANSIENT', retryable: true });
    } finally {
      await offline.close();
    }
  });

  it('reports an unreadable success to a publish as UNKNOWN_OUTCOME', async () => {
    handler = (_req, _b, res) => {
      res.writeHead(201, { 'content-type': 'text/html' });
      res.end('<html>ok</html>');
    };
    expect(await failure(adapter.publish(publishInput))).toMatchObject({ kind: 'UNKNOWN_OUTCOME', upstreamStatus: 201 });
  });

  it('connects an own account by asking for a token, and lists the connectable accounts', async () => {
    const profile = { id: 'gn-own-1', name: 'Own', username: 'own', picture: 'p', kind: 'own', followers: 1 };
    handler = reply(201, { accessToken: 'sbx_tok', profile });
    await expect(adapter.connectAccount({ net: 'generalNet', accountId: 'gn-own-1' })).resolves.toEqual({
      accessToken: 'sbx_tok',
      profile,
    });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/sandbox/generalNet/accounts/gn-own-1/tokens' });

    handler = reply(200, { items: [profile] });
    await expect(adapter.listConnectableAccounts('generalNet')).resolves.toEqual([profile]);
    expect(seen[1]!.url).toBe('/sandbox/generalNet/accounts?kind=own');
  });

  it('classifies a refused connect (not an own account) as REJECTED', async () => {
    handler = errorReply(403, 'ACCOUNT_NOT_CONNECTABLE');
    expect(await failure(adapter.connectAccount({ net: 'generalNet', accountId: 'gn-biz-1' }))).toMatchObject({
      kind: 'REJECTED',
      operation: 'connectAccount',
      upstreamCode: 'ACCOUNT_NOT_CONNECTABLE',
    });
  });

  it('sends metric queries and returns the answer', async () => {
    handler = reply(200, { days: [{ date: '2026-01-01', values: { 'gn-daily-page-fans': 10 } }], unavailable: [] });
    await expect(adapter.dailyMetrics({ ...metricsInput, accessToken: 't' })).resolves.toEqual({
      days: [{ date: '2026-01-01', values: { 'gn-daily-page-fans': 10 } }],
      unavailable: [],
    });
    expect(seen[0]!.url).toBe(
      '/sandbox/generalNet/accounts/gn-own-1/metrics/daily?since=2026-01-01&until=2026-01-02&metrics=gn-daily-page-fans',
    );
    expect(seen[0]!.headers['authorization']).toBe('Bearer t');
  });

  it('does not count the wait for a free socket against the timeout', async () => {
    handler = (_req, _b, res) => setTimeout(() => reply(200, { days: [], unavailable: [] })(_req, _b, res), 200);
    const narrow = new SandboxAdapter({ baseUrl, timeoutMs: 300, maxSockets: 1 });
    try {
      // Three calls through one socket: the last waits ~400 ms, but each answer takes only 200 ms.
      const results = await Promise.all([1, 2, 3].map(() => narrow.dailyMetrics(metricsInput)));
      expect(results).toHaveLength(3);
    } finally {
      await narrow.close();
    }
  });

  it('reuses connections (keep-alive)', async () => {
    handler = reply(200, { days: [], unavailable: [] });
    await adapter.dailyMetrics(metricsInput);
    await adapter.dailyMetrics(metricsInput);
    expect(seen[0]!.headers['connection']).toBe('keep-alive');
  });
});

describe('createNetworkAdapter', () => {
  it('builds the sandbox adapter from config', async () => {
    const a = createNetworkAdapter({ networkAdapter: 'sandbox', networkSandboxUrl: baseUrl, networkTimeoutMs: 1000, networkMaxSockets: 4 });
    expect(a).toBeInstanceOf(SandboxAdapter);
    await a.close();
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
