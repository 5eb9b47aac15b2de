import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { loadOpenApi } from '@social/openapi';
import { TestSystem } from '@social/testkit';

/**
 * A seeded, bounded fuzz of the public API, driven by the OpenAPI document: for every operation it
 * builds a valid-looking request from the schemas and sends mutated variants through the gateway
 * of the whole system. No answer may be a 5xx; every 4xx must carry our error body (at most 20
 * details). FUZZ_SEED and FUZZ_REQUESTS change the run; a failure prints the seed and the request.
 */
const SEED = Number(process.env['FUZZ_SEED'] ?? 20241124);
const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 5200);
const CONCURRENCY = 8;

/** mulberry32: small, seeded, good enough to pick mutations. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}

type Json = unknown;
interface Operation {
  method: string;
  template: string;
  params: string[];
  query: string[];
  body: any | undefined;
}

const doc: any = loadOpenApi();
const resolve = (s: any): any =>
  s?.$ref
    ? resolve(
        s.$ref
          .replace(/^#\//, '')
          .split('/')
          .reduce((n: any, p: string) => n?.[p], doc),
      )
    : s;

/** A plausible value of a schema: required fields, first enum value, examples where given. */
function sample(schema: any, depth = 0): Json {
  const s = resolve(schema) ?? {};
  if (depth > 6) return null;
  if (s.example !== undefined) return s.example;
  if (s.enum) return s.enum.find((v: unknown) => v !== null) ?? null;
  if (s.anyOf || s.oneOf) return sample((s.anyOf ?? s.oneOf)[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type ?? (s.properties ? 'object' : undefined)) {
    case 'object': {
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries<any>(s.properties ?? {})) out[k] = sample(v, depth + 1);
      return out;
    }
    case 'array':
      return [sample(s.items, depth + 1)];
    case 'integer':
      return s.minimum ?? 1;
    case 'number':
      return s.minimum ?? 1.5;
    case 'boolean':
      return true;
    case 'string':
      return s.format === 'uri'
        ? 'https://example.com/a'
        : s.format === 'date-time'
          ? new Date(Date.now() + 86_400_000).toISOString()
          : 'fuzz';
    default:
      return null;
  }
}

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      const body = op.requestBody ? resolve(op.requestBody)?.content?.['application/json']?.schema : undefined;
      ops.push({
        method: method.toUpperCase(),
        template,
        params: parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name),
        query: parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name),
        body: body ? sample(body) : undefined,
      });
    }
  }
  return ops;
}

interface FuzzRequest {
  /** Sent as X-Request-Id (unless a mutation sets its own), to find the request in the logs. */
  requestId: string;
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

const BAD_IDS = [
  '%FF',
  '%C0%AE',
  '%00',
  'a%00b',
  '%E0%A4%A',
  '..%2F..%2Fetc',
  '%2e%2e',
  'x'.repeat(3000),
  '%F0%9F%98%80',
  '$where',
  '{}',
  '%25',
];
const BAD_QUERY = [
  'take=1e400',
  'skip=-1',
  'take=%00',
  'since=%FF',
  'take[$gt]=1',
  'take[]=1&take[]=2',
  'x=%00',
  'query=%00',
  'net=%C0%AE',
  'labelIds=%00',
  'take=99999999999999999999',
];
const BAD_VALUES: Json[] = [
  'a\u0000b',
  '\u0000',
  'RAW:1e400',
  'RAW:-1e400',
  'RAW:1e308',
  -1,
  0,
  2 ** 53 + 1,
  'x'.repeat(20000),
  { $where: 'sleep(1000)' },
  { $gt: '' },
  [],
  {},
  null,
  true,
  Array(5000).fill(0),
  deep(200),
];

function deep(levels: number): Json {
  let v: Json = 0;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** JSON with `RAW:` strings written as bare tokens, to send numbers JSON.stringify cannot (1e400). */
function toJson(value: Json): string {
  return JSON.stringify(value).replace(/"RAW:([^"]*)"/g, '$1');
}

function mutateValue(value: Json, r: ReturnType<typeof rng>): Json {
  if (value === null || typeof value !== 'object' || r.next() < 0.25) return r.pick(BAD_VALUES);
  const copy: any = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  if (keys.length === 0 || r.next() < 0.15) {
    copy[r.pick(['$where', 'a\u0000', '__proto__', 'unknownField', 'constructor'])] = r.pick(BAD_VALUES);
    return copy;
  }
  const k = r.pick(keys);
  copy[k] = mutateValue(copy[k], r);
  return copy;
}

let built = 0;
function build(op: Operation, r: ReturnType<typeof rng>, auth: Record<string, string>, ids: string[]): FuzzRequest {
  let path = op.template.replace(/\{([^}]+)\}/g, () => encodeURIComponent(r.next() < 0.5 ? r.pick(ids) : `fz${r.int(1000)}`));
  const headers: Record<string, string | string[]> = { ...auth };
  let body: Buffer | undefined = op.body === undefined ? undefined : Buffer.from(toJson(op.body));
  const kinds = ['valid', 'body', 'body', 'body', 'path', 'query', 'raw', 'encoding', 'charset', 'headers', 'expect', 'oversized'];
  const kind = r.pick(kinds);
  switch (kind) {
    case 'body':
      body = Buffer.from(toJson(mutateValue(op.body ?? {}, r)));
      break;
    case 'path':
      if (op.params.length > 0) path = op.template.replace(/\{([^}]+)\}/, r.pick(BAD_IDS)).replace(/\{([^}]+)\}/g, 'x');
      else path = `${path}${r.pick(['/%FF', '/%00', '%C0%AE', '/%ZZ'])}`;
      break;
    case 'query':
      path += `?${r.pick(BAD_QUERY)}${op.query.length ? `&${r.pick(op.query)}=${r.pick(['%00', '%FF', '1e400', '-1', 'x'.repeat(5000)])}` : ''}`;
      break;
    case 'raw':
      body = Buffer.from(
        r.pick(['{', '{"a":', 'null', '[]', '"str"', '\u0000', '{"a":1}{"b":2}', '\ufeff{}', '{"a":"\\ud800"}', '{"__proto__":{"x":1}}']),
      );
      break;
    case 'encoding': {
      const enc = r.pick(['br', 'gzip', 'deflate', 'xyz', 'gzip, br', 'identity']);
      headers['content-encoding'] = enc;
      // Half the gzip bodies really are compressed; the rest claim to be and are not.
      if (enc === 'gzip' && r.next() < 0.5) body = gzipSync(body ?? Buffer.from('{}'));
      body ??= Buffer.from('{}');
      break;
    }
    case 'charset':
      headers['content-type'] =
        `application/json; charset=${r.pick(['latin1', 'utf-16', 'utf-32', 'iso-8859-1', 'x-unknown', 'utf-16le'])}`;
      body ??= Buffer.from('{}');
      break;
    case 'headers': {
      const n = r.pick([150, 1500]);
      for (let i = 0; i < n; i++) headers[`x-fuzz-${i}`] = 'v';
      break;
    }
    case 'expect':
      headers['expect'] = r.pick(['200-ok', 'weird', '100-continue-not']);
      break;
    case 'oversized':
      body = Buffer.from(
        `{"type":"LINK","links":[${Array(r.pick([30000, 120000]))
          .fill('0')
          .join(',')}]}`,
      );
      break;
  }
  if (body && !headers['content-type']) headers['content-type'] = 'application/json';
  return { requestId: `fuzz-${SEED}-${++built}`, kind, method: op.method, path: `/v2${path}`, headers, ...(body ? { body } : {}) };
}

function send(base: URL, agent: http.Agent, req: FuzzRequest): Promise<{ status: number; text: string; contentType: string | undefined }> {
  return new Promise((resolve, reject) => {
    const headers = {
      'x-request-id': req.requestId,
      ...req.headers,
      ...(req.body ? { 'content-length': String(req.body.length) } : {}),
    };
    const r = http.request(
      { host: base.hostname, port: base.port, method: req.method, path: req.path, headers, agent, timeout: 60_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), contentType: res.headers['content-type'] }),
        );
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error('no answer within 60 s')));
    r.on('error', reject);
    r.end(req.body);
  });
}

const stalls: string[] = [];

/**
 * A request left without an answer is sent once more before it counts as a failure. Why: once in
 * three CI runs, with the publishing e2e beside it on the 2-core machine, three ordinary requests
 * (one of them a valid GET) got no answer for 60 s while the others were answered; what an input
 * does to the system happens again on the second try, a passing stall does not. Stalls are
 * counted and printed with every log line that mentions the request, so they stay visible and
 * show which process held the request.
 */
async function sendTwice(base: URL, agent: http.Agent, req: FuzzRequest) {
  try {
    return await send(base, agent, req);
  } catch (err) {
    if (!(err as Error).message.startsWith('no answer')) throw err;
    // Where it stalled: every process logs a request still running after 10 s (packages/http).
    const seen = system.logsMentioning(req.requestId);
    stalls.push(`${req.kind} ${req.method} ${req.path.slice(0, 120)} (${req.requestId})\n  ${seen.join('\n  ') || 'in no log'}`);
    return send(base, agent, { ...req, requestId: `${req.requestId}-again` });
  }
}

function errorBodyProblem(text: string): string | undefined {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const e = body?.error;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || !Array.isArray(e.details)) return 'not our error body';
  if (!('requestId' in e)) return 'no requestId';
  if (e.details.length > 20) return `${e.details.length} details`;
  if (!e.details.every((d: any) => typeof d?.path === 'string' && typeof d?.message === 'string')) return 'malformed details';
  return undefined;
}

let system: TestSystem;
beforeAll(async () => {
  const PLANS = JSON.stringify({ free: { competitors: 5 }, fuzz: { competitors: 5, requestsPerWindow: 1_000_000 } });
  system = await TestSystem.start({ PLANS, LOG_LEVEL: 'warn' });
});
afterAll(async () => {
  await system?.destroy();
});

it(`answers ${REQUESTS} mutated requests without a 5xx, every 4xx in our error body (seed ${SEED})`, async () => {
  const creds = await system.admin(['workspace', 'create', '--name', 'fuzz', '--plan', 'fuzz', '--sandbox-profiles', '--json']);
  const auth = { 'x-api-id': creds.apiId, 'x-api-key': creds.apiKey };
  const ids: string[] = creds.profiles.map((p: { id: string }) => p.id);
  const base = new URL(system.gatewayUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const ops = operations();
  const r = rng(SEED);
  const requests = Array.from({ length: REQUESTS }, () => build(r.pick(ops), r, auth, ids));
  const failures: string[] = [];
  const kinds = new Map<string, number>();
  const statuses = new Map<number, number>();
  let i = 0;
  const worker = async () => {
    while (i < requests.length && failures.length < 20) {
      const req = requests[i++]!;
      kinds.set(req.kind, (kinds.get(req.kind) ?? 0) + 1);
      let res;
      try {
        res = await sendTwice(base, agent, req);
      } catch (err) {
        failures.push(`${req.kind} ${req.method} ${req.path.slice(0, 120)}: ${(err as Error).message}`);
        continue;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const problem = res.status >= 500 ? `status ${res.status}` : res.status >= 400 ? errorBodyProblem(res.text) : undefined;
      if (problem)
        failures.push(`${req.kind} ${req.method} ${req.path.slice(0, 120)} -> ${res.status} ${problem}: ${res.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  if (stalls.length > 0) console.warn(`fuzz: ${stalls.length} request(s) answered only when sent again:\n${stalls.join('\n')}`);

  // Every class was exercised, and the system answered more than errors.
  for (const kind of ['valid', 'body', 'path', 'query', 'raw', 'encoding', 'charset', 'headers', 'expect', 'oversized'])
    expect(kinds.get(kind) ?? 0).toBeGreaterThan(50);
  expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
  expect({ seed: SEED, failures }).toEqual({ seed: SEED, failures: [] });
  expect(i).toBeGreaterThanOrEqual(5000);
});
