import { createHmac } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { mediaServiceDefinition, postsServiceDefinition, profilesServiceDefinition } from '@social/contracts';
import { KNOWN_WEAK_SECRETS } from '@social/config';
import { forgeToken, signTestToken, TestSystem, type TestIssuer } from '@social/testkit';

// Forged internal tokens (HTTP and gRPC), forged signed storage addresses, and a body built to
// make validation do unbounded work, against the whole system as processes.
let system: TestSystem;
let gw: string;

interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
  profiles: { id: string; net: { code: string } }[];
}
let victim: Creds;
let attacker: Creds;

beforeAll(async () => {
  system = await TestSystem.start({ PLANS: JSON.stringify({ free: { competitors: 5 }, tiny: { competitors: 1 } }) });
  gw = `${system.gatewayUrl}/v2`;
  victim = await system.admin(['workspace', 'create', '--name', 'victim', '--sandbox-profiles', '--json']);
  attacker = await system.admin(['workspace', 'create', '--name', 'attacker', '--json']);
});
afterAll(async () => {
  await system?.destroy();
});

const api = (c: Creds, method: string, path: string, body?: unknown) =>
  fetch(`${gw}${path}`, {
    method,
    headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

const now = () => Math.floor(Date.now() / 1000);

/** Every token an attacker could make without the gateway's private key, for one audience. */
function forgeries(audience: string, ws: string): [string, string][] {
  const claims = { ws, iss: 'gateway', aud: audience, plan: 'agency' };
  return [
    ...KNOWN_WEAK_SECRETS.map((secret): [string, string] => [`HS256 with "${secret}"`, forgeToken({ alg: 'HS256', secret }, claims)]),
    ['alg none', forgeToken({ alg: 'none' }, claims)],
    ['a service key claiming to be the gateway', signTestToken('posts', audience, ws, { payload: { iss: 'gateway' } })],
    ['a service key under its own name', signTestToken('media', audience, ws)],
    [
      'the gateway key for another audience',
      signTestToken('gateway', 'media', ws, { payload: { aud: audience === 'media' ? 'posts' : 'media' } }),
    ],
    ['the gateway key, wrong issuer claim', signTestToken('gateway', audience, ws, { payload: { iss: 'social-gateway' } })],
    ['the gateway key, expired', signTestToken('gateway', audience, ws, { payload: { iat: now() - 300, exp: now() - 200 } })],
    ['the gateway key, a day long', signTestToken('gateway', audience, ws, { payload: { exp: now() + 86400 } })],
  ];
}

describe('forged internal tokens over HTTP', () => {
  it.each([
    ['posts', '/labels/'],
    ['competitors', '/profiles'],
    ['media', '/media'],
    ['insights', '/profile/x/insights/metrics'],
  ])('%s refuses every forgery with 401 and serves the gateway-signed control', async (service, path) => {
    for (const [what, token] of forgeries(service, victim.workspaceId)) {
      const res = await fetch(`${system.url(service)}/v2${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = await res.json();
      expect({ what, status: res.status, code: body.error?.code }).toEqual({ what, status: 401, code: 'UNAUTHENTICATED' });
    }
    const control = await fetch(`${system.url(service)}/v2${path}`, {
      headers: { authorization: `Bearer ${signTestToken('gateway', service, victim.workspaceId)}` },
    });
    expect(control.status).not.toBe(401);
  });

  it('takes the plan only from the gateway: a client header or a forged claim raises no limit', async () => {
    const c: Creds = await system.admin(['workspace', 'create', '--name', 'tiny', '--plan', 'tiny', '--sandbox-profiles', '--json']);
    const headers = {
      'X-API-ID': c.apiId,
      'X-API-KEY': c.apiKey,
      'content-type': 'application/json',
      'x-plan': 'agency',
      authorization: `Bearer ${forgeToken({ alg: 'HS256', secret: KNOWN_WEAK_SECRETS[0]! }, { ws: c.workspaceId, plan: 'agency' })}`,
    };
    const search = async (q: string) => (await (await fetch(`${gw}/search/profiles?${q}`, { headers })).json()).items[0].id;
    const add = (profileId: string) => fetch(`${gw}/competitor`, { method: 'POST', headers, body: JSON.stringify({ profileId }) });

    expect((await add(await search('net=photoNet&query=harbor.lane.bakery'))).status).toBe(201);
    const second = await add(await search('net=generalNet&query=coffee'));
    expect(second.status).toBe(403);
    expect((await second.json()).error.code).toBe('PLAN_LIMIT_REACHED');
  });
});

/** A bare gRPC call with the given bearer token (createGrpcClient always signs with a real key). */
function rawCall(address: string, service: grpc.ServiceDefinition, method: string, request: object, token: string) {
  const def = service[method]!;
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${token}`);
  return new Promise<{ code: number; details?: string; response?: any }>((resolve) => {
    client.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      request,
      md,
      { deadline: Date.now() + 5000 },
      (err, response) => {
        client.close();
        resolve(err ? { code: err.code, details: err.details } : { code: 0, response });
      },
    );
  });
}

describe('forged internal tokens over gRPC', () => {
  const credentials = (token: string) =>
    rawCall(
      system.env['COMPETITORS_GRPC_URL']!,
      profilesServiceDefinition(),
      'GetPublishCredentials',
      { profile_id: victim.profiles[0]!.id },
      token,
    );

  it('GetPublishCredentials (a decrypted network token) answers only callers on its allow-list', async () => {
    for (const [what, token] of forgeries('competitors', victim.workspaceId)) {
      const r = await credentials(token);
      expect({ what, code: r.code }).toEqual({ what, code: grpc.status.UNAUTHENTICATED });
    }
    // Genuine keys of services that have no business with network tokens, and the gateway's.
    for (const issuer of ['gateway', 'posts', 'media'] as TestIssuer[]) {
      const r = await credentials(signTestToken(issuer, 'competitors', victim.workspaceId));
      expect({ issuer, code: r.code, details: r.details }).toEqual({
        issuer,
        code: grpc.status.UNAUTHENTICATED,
        details: `Invalid internal token: issuer ${issuer} not allowed here.`,
      });
    }
    const ok = await credentials(signTestToken('publisher', 'competitors', victim.workspaceId));
    expect(ok.code).toBe(grpc.status.OK);
    expect(ok.response.access_token).toBeTruthy();
  });

  it('ReadMediaFile and GetPostForPublishing refuse the gateway and other services', async () => {
    for (const issuer of ['gateway', 'posts', 'insights'] as TestIssuer[]) {
      const media = await rawCall(
        system.env['MEDIA_GRPC_URL']!,
        mediaServiceDefinition(),
        'BatchGetMedia',
        { ids: ['x'] },
        signTestToken(issuer === 'posts' ? 'insights' : issuer, 'media', victim.workspaceId),
      );
      expect(media.code).toBe(grpc.status.UNAUTHENTICATED);
      const post = await rawCall(
        system.env['POSTS_GRPC_URL']!,
        postsServiceDefinition(),
        'GetPostForPublishing',
        { post_id: 'p', profile_id: 'x' },
        signTestToken(issuer, 'posts', victim.workspaceId),
      );
      expect(post.code).toBe(grpc.status.UNAUTHENTICATED);
    }
  });
});

describe('forged signed storage addresses', () => {
  it('an address signed with the old default secret opens nothing', async () => {
    const created = await (await api(victim, 'POST', '/media', { name: 'a.jpg', destinationType: 'POST_MEDIA' })).json();
    const mediaId: string = created.id;
    const expires = now() + 600;
    for (const secret of KNOWN_WEAK_SECRETS) {
      for (const [method, path] of [
        ['PUT', `/storage/uploads/${mediaId}`],
        ['GET', `/storage/files/${mediaId}/original`],
      ] as const) {
        const sig = createHmac('sha256', secret).update(`${method}\n${path}\n${expires}`).digest('hex');
        const res = await fetch(`${system.gatewayUrl}${path}?expires=${expires}&sig=${sig}`, {
          method,
          ...(method === 'PUT' ? { headers: { 'content-type': 'image/jpeg' }, body: Buffer.from('planted') } : {}),
        });
        expect({ secret, method, status: res.status }).toEqual({ secret, method, status: 403 });
      }
    }
  });
});

describe('validation that does not grow with the body', () => {
  const links = (bytes: number) =>
    `{"type":"LINK","links":[${Array(Math.floor(bytes / 2))
      .fill('0')
      .join(',')}]}`;

  it('answers huge invalid bodies with a small error while another workspace is served', async () => {
    const attacks = [
      ...Array.from({ length: 4 }, () => api(attacker, 'POST', '/posts', links(1024 * 1024))),
      ...Array.from({ length: 4 }, () => api(attacker, 'POST', '/posts', links(250 * 1024))),
    ];
    const others = Array.from({ length: 20 }, () => api(victim, 'GET', '/labels/'));
    const [answers, served] = await Promise.all([Promise.all(attacks), Promise.all(others)]);

    for (const res of answers) {
      const text = await res.text();
      const body = JSON.parse(text);
      expect([400, 413]).toContain(res.status);
      expect(text.length).toBeLessThan(4096);
      expect(body.error.details.length).toBeLessThanOrEqual(20);
    }
    // The 1 MB body is over the posts route's limit; the 250 KB one is validated, first problem only.
    expect(answers.slice(0, 4).map((r) => r.status)).toEqual([413, 413, 413, 413]);
    expect(answers.slice(4).map((r) => r.status)).toEqual([400, 400, 400, 400]);
    expect(served.map((r) => r.status)).toEqual(Array(20).fill(200));
  });

  it('lists every problem of an ordinary invalid body, at most 20', async () => {
    const res = await api(attacker, 'POST', '/posts', { type: 'LINK', links: Array(20).fill(0), captions: Array(20).fill(1) });
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body.error.details).toHaveLength(20);
  });
});
