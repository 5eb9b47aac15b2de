import dns from 'node:dns';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import { blockedReason, checkUrl, type AllowList } from './address-rules';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name; tests plug in their own to play DNS games without a DNS server. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export interface FetchPolicy {
  resolver: Resolver;
  allow?: AllowList;
  /** Extra trusted CA certificates (tests, private PKI); the system roots are used otherwise. */
  ca?: string | Buffer;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
}

/** The URL cannot be fetched under the rules; `reason` is shown to the user. */
export class FetchRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'FetchRefusedError';
  }
}

/**
 * What POST /media/from-url checks before accepting: the URL rules and every address its host
 * resolves to now. The worker checks again on the address it actually connects to.
 */
export async function precheckUrl(raw: string, policy: Pick<FetchPolicy, 'resolver' | 'allow'>): Promise<URL> {
  const checked = checkUrl(raw, policy.allow);
  if (!checked.ok) throw new FetchRefusedError(checked.reason);
  const host = checked.url.hostname.replace(/^\[|\]$/g, '');
  if (!isIpLiteral(host)) await resolveChecked(host, policy);
  return checked.url;
}

const isIpLiteral = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');

async function resolveChecked(host: string, policy: Pick<FetchPolicy, 'resolver' | 'allow'>): Promise<ResolvedAddress[]> {
  let addrs: ResolvedAddress[];
  try {
    addrs = await policy.resolver(host);
  } catch {
    throw new FetchRefusedError(`host name ${host} does not resolve`);
  }
  if (addrs.length === 0) throw new FetchRefusedError(`host name ${host} does not resolve`);
  // Every address must be public: which one a connection would use is not ours to predict.
  for (const a of addrs) {
    const why = blockedReason(a.address, policy.allow);
    if (why) throw new FetchRefusedError(`host name ${host} resolves to a non-public address: ${why}`);
  }
  return addrs;
}

export interface FetchedBody {
  stream: IncomingMessage;
  contentType: string | undefined;
  contentLength: number | undefined;
  finalUrl: string;
  /** Stops the total-timeout timer; call when done with the stream. */
  done(): void;
}

/**
 * GET over HTTPS under the import rules: the connection uses only addresses that passed the check
 * at connect time (so DNS rebinding between check and connect does not get through), every
 * redirect is checked like the first URL and must stay on HTTPS, and both a connect and a total
 * timeout apply. Resolves when a 200 response starts; the caller streams the body.
 */
export async function safeFetch(raw: string, policy: FetchPolicy): Promise<FetchedBody> {
  const deadline = Date.now() + policy.totalTimeoutMs;
  let current = raw;
  for (let hop = 0; ; hop++) {
    const checked = checkUrl(current, policy.allow);
    if (!checked.ok) {
      throw new FetchRefusedError(hop === 0 ? `the URL ${checked.reason}` : `a redirect to ${current} was refused: the URL ${checked.reason}`);
    }
    const res = await requestOnce(checked.url, policy, deadline);
    const status = res.response.statusCode ?? 0;
    if ([301, 302, 303, 307, 308].includes(status)) {
      res.response.resume();
      res.done();
      const location = res.response.headers.location;
      if (!location) throw new FetchRefusedError(`the server answered ${status} without a Location`);
      if (hop + 1 > policy.maxRedirects) throw new FetchRefusedError(`more than ${policy.maxRedirects} redirects`);
      current = new URL(location, checked.url).toString();
      continue;
    }
    if (status !== 200) {
      res.response.resume();
      res.done();
      throw new FetchRefusedError(`the server answered HTTP ${status}`);
    }
    const len = res.response.headers['content-length'];
    return {
      stream: res.response,
      contentType: res.response.headers['content-type']?.split(';')[0]?.trim().toLowerCase(),
      contentLength: len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined,
      finalUrl: checked.url.toString(),
      done: res.done,
    };
  }
}

function requestOnce(url: URL, policy: FetchPolicy, deadline: number): Promise<{ response: IncomingMessage; done(): void }> {
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolveChecked(hostname, policy).then(
      (addrs) => {
        if (options.all) callback(null, addrs.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, addrs[0]!.address, addrs[0]!.family);
      },
      (err) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new FetchRefusedError(`the download took longer than ${policy.totalTimeoutMs} ms`));
    const req = https.request(url, {
      method: 'GET',
      lookup,
      agent: false,
      ...(policy.ca ? { ca: policy.ca } : {}),
      headers: { 'user-agent': 'social-media-import/1.0', accept: '*/*' },
    });
    let connectTimer: NodeJS.Timeout | undefined;
    const totalTimer = setTimeout(() => {
      req.destroy(new FetchRefusedError(`the download took longer than ${policy.totalTimeoutMs} ms`));
    }, remaining);
    const done = () => {
      clearTimeout(totalTimer);
      clearTimeout(connectTimer);
    };
    req.on('socket', (socket) => {
      connectTimer = setTimeout(() => {
        req.destroy(new FetchRefusedError(`connecting to ${url.host} took longer than ${policy.connectTimeoutMs} ms`));
      }, policy.connectTimeoutMs);
      socket.once('secureConnect', () => clearTimeout(connectTimer));
    });
    req.on('response', (response) => resolve({ response, done }));
    req.on('error', (err) => {
      done();
      reject(err instanceof FetchRefusedError ? err : new FetchRefusedError(describeNetworkError(url, err)));
    });
    req.end();
  });
}

function describeNetworkError(url: URL, err: Error & { code?: string }): string {
  if (err instanceof FetchRefusedError) return err.reason;
  const code = err.code ?? '';
  if (code.startsWith('ERR_TLS') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return `the TLS certificate of ${url.host} is not trusted (${code})`;
  }
  if (code === 'ECONNREFUSED') return `${url.host} refused the connection`;
  if (code === 'ENOTFOUND') return `host name ${url.hostname} does not resolve`;
  return `fetching ${url.host} failed: ${err.message}`;
}
