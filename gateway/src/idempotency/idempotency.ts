import crypto from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, ErrorCodes, serviceUnavailable, validationError } from '@social/errors';
import { createLogger, errorFields } from '@social/logger';
import type { IdempotencyStore, StoredResponse } from './idempotency-store';

const log = createLogger('gateway:idempotency');

export const IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED';
export const IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE';

/** Visible ASCII without spaces or commas (a repeated header arrives joined by ", "); UUIDs fit. */
const KEY_PATTERN = /^[\x21-\x2b\x2d-\x7e]{1,255}$/;
const STAGE_CHANGE = /^\/v2\/posts\/[^/]+\/stage\/[^/]+\/?$/;
// The headers a client acts on; rate limit and request id headers describe the retry, not the first call.
const REPLAYED_HEADERS = ['content-type', 'content-encoding', 'location', 'etag', 'last-modified', 'vary'];

/** Every POST, and the stage changes of posts (PATCH), take an Idempotency-Key. */
export function takesIdempotencyKey(method: string, path: string): boolean {
  return method === 'POST' || (method === 'PATCH' && STAGE_CHANGE.test(path));
}

/** Successful and final client errors are kept; 408/425/429 and 5xx invite a retry that does the work. */
export function isKept(status: number): boolean {
  return (status >= 200 && status < 400) || (status >= 400 && status < 500 && ![408, 425, 429].includes(status));
}

export function validateIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!KEY_PATTERN.test(value)) {
    throw validationError([
      {
        path: '/headers/idempotency-key',
        message: 'must be 1 to 255 visible ASCII characters without spaces or commas (a UUID, for example)',
      },
    ]);
  }
  return value;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The body as received, when the gateway had to read it (it is forwarded as these bytes). */
      rawBody?: Buffer;
    }
  }
}

/**
 * Stripe-style idempotency keys, per workspace: the first request with a key does the work and its
 * response is kept; a retry with the same key and the same request gets that response again.
 */
export function idempotency(store: IdempotencyStore, bodyLimitFor: (path: string) => number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.originalUrl.split('?')[0]!;
    if (!takesIdempotencyKey(req.method, path)) return next();
    let key: string | undefined;
    try {
      key = validateIdempotencyKey(req.headers['idempotency-key']);
    } catch (err) {
      return next(err);
    }
    if (key === undefined) return next();
    const idemKey = key;
    readBody(req, bodyLimitFor(path))
      .then(async (body) => {
        req.rawBody = body;
        const fingerprint = crypto.createHash('sha256').update(`${req.method} ${req.originalUrl}\n`).update(body).digest('base64url');
        const claim = await store.claim(req.principal!.workspaceId, idemKey, fingerprint, req.requestId);
        switch (claim.kind) {
          case 'reused':
            throw new AppError(
              IDEMPOTENCY_KEY_REUSED,
              422,
              'This Idempotency-Key was used with a different request; use a new key for a new request.',
            );
          case 'in-flight':
            throw new AppError(
              IDEMPOTENCY_KEY_IN_USE,
              409,
              'A request with this Idempotency-Key is still in progress; retry after it has finished.',
              { headers: { 'Retry-After': '1' } },
            );
          case 'replay':
            return replay(res, claim.response);
          case 'claimed':
            captureResponse(res, claim.complete, claim.release);
            next();
        }
      })
      // Redis down: no promise can be kept, so the request is refused rather than done unguarded.
      .catch((err) => next(err instanceof AppError ? err : serviceUnavailable('The idempotency store')));
  };
}

function replay(res: Response, r: StoredResponse): void {
  for (const [k, v] of Object.entries(r.headers)) res.setHeader(k, v);
  res.setHeader('Idempotent-Replayed', 'true');
  res.status(r.status).end(r.body);
}

/**
 * Holds the response until it is kept (or the key released), so a client that saw the response
 * and retries always finds it stored.
 */
function captureResponse(res: Response, complete: (r: StoredResponse) => Promise<void>, release: () => Promise<void>): void {
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => Response;
  const toBuffer = (chunk: unknown, enc?: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof enc === 'string' ? (enc as BufferEncoding) : 'utf8');
  res.write = ((chunk: unknown, enc?: unknown, cb?: unknown) => {
    chunks.push(toBuffer(chunk, enc));
    const done = typeof enc === 'function' ? enc : cb;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  }) as Response['write'];
  res.end = ((chunk?: unknown, enc?: unknown, cb?: unknown) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, enc));
    const done = [chunk, enc, cb].find((x) => typeof x === 'function') as (() => void) | undefined;
    const body = Buffer.concat(chunks);
    res.write = write as Response['write'];
    const settle = isKept(res.statusCode) ? complete({ status: res.statusCode, headers: keptHeaders(res), body }) : release();
    settle
      .catch((err) => log.warn('idempotency record not updated', errorFields(err)))
      .finally(() => {
        end(body, done);
      });
    return res;
  }) as Response['end'];
}

function keptHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const v = res.getHeader(name);
    if (v !== undefined) out[name] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new AppError(ErrorCodes.PAYLOAD_TOO_LARGE, 413, `The request body is larger than ${limit} bytes.`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
