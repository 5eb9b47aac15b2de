import https from 'node:https';
import { checkUrl, guardedLookup, type AddressPolicy } from '@social/url-guard';
import type { AttemptResult } from '../domain/ports';
import type { Sender } from '../domain/deliver.use-case';

export interface SenderOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  /** Extra trusted CA certificates (tests); the system roots otherwise. */
  ca?: string | Buffer;
  maxSockets?: number;
}

const MAX_ERROR_LENGTH = 300;

/**
 * POSTs over HTTPS under the same rules as media imports: the URL is checked again before every
 * attempt (an IP literal never goes through DNS), and the connection uses only addresses that pass
 * at connect time (DNS rebinding does not get through). Redirects are not followed. Keep-alive
 * connections are reused between attempts to the same host.
 */
export function httpsSender(opts: SenderOptions): Sender & { close(): void } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 256, ...(opts.ca ? { ca: opts.ca } : {}) });
  const lookup = guardedLookup(opts.policy);
  return {
    close: () => agent.destroy(),
    send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
      const checked = checkUrl(url, opts.policy.allow);
      if (!checked.ok) return Promise.resolve({ statusCode: null, error: `the URL ${checked.reason}` });
      return new Promise<AttemptResult>((resolve) => {
        let settled = false;
        const finish = (r: AttemptResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(r);
        };
        const req = https.request(checked.url, {
          method: 'POST',
          agent,
          lookup,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        });
        const timer = setTimeout(() => {
          req.destroy();
          finish({ statusCode: null, error: `no answer within ${opts.timeoutMs} ms` });
        }, opts.timeoutMs);
        req.on('response', (res) => {
          // The body is not read into the log; it is drained so the connection can be reused.
          res.resume();
          res.on('end', () => finish({ statusCode: res.statusCode ?? null, error: null }));
          res.on('error', () => finish({ statusCode: res.statusCode ?? null, error: null }));
        });
        req.on('error', (err: Error & { code?: string; reason?: string }) => {
          const why = err.reason ?? (err.code === 'ECONNREFUSED' ? `${checked.url.host} refused the connection` : err.message);
          finish({ statusCode: null, error: why.slice(0, MAX_ERROR_LENGTH) });
        });
        req.end(body);
      });
    },
  };
}
