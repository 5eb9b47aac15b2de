import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { checkUrl, FetchRefusedError, guardedLookup, type AllowList, type Resolver } from '@social/url-guard';

export { FetchRefusedError, precheckUrl, systemResolver, type ResolvedAddress, type Resolver } from '@social/url-guard';

export interface FetchPolicy {
  resolver: Resolver;
  allow?: AllowList;
  /** Extra trusted CA certificates (tests, private PKI); the system roots are used otherwise. */
  ca?: string | Buffer;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
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
      throw new FetchRefusedError(
        hop === 0 ? `the URL ${checked.reason}` : `a redirect to ${current} was refused: the URL ${checked.reason}`,
      );
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
  const lookup = guardedLookup(policy);
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
