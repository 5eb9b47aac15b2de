import type { NextFunction, Request, Response } from 'express';
import { AppError, ErrorCodes, MAX_ERROR_DETAILS, validationError, type ErrorDetail } from '@social/errors';

/**
 * Checks every request gets once, before any route: what no field of ours may hold is refused here
 * with a 400, so it never reaches a database (PostgreSQL under FerretDB cannot store U+0000) or a
 * gRPC call, whatever the route.
 */

/** Deeper JSON than this is no request of ours (and would make recursive code crash). */
export const MAX_JSON_DEPTH = 32;

/** More header lines than any client of ours sends (browsers send about 20); 431 above it. */
export const MAX_HEADER_COUNT = 100;

export function checkHeaderCount(req: Request, _res: Response, next: NextFunction): void {
  if (req.rawHeaders.length / 2 > MAX_HEADER_COUNT) {
    return next(new AppError(ErrorCodes.HEADERS_TOO_LARGE, 431, `The request has more than ${MAX_HEADER_COUNT} header lines.`));
  }
  next();
}

/** The address: percent-escapes must decode (UTF-8) and must not decode to NUL. */
export function checkRequestTarget(req: Request, _res: Response, next: NextFunction): void {
  const target = req.originalUrl;
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  try {
    decodeURIComponent(path);
  } catch {
    return next(new AppError(ErrorCodes.BAD_REQUEST, 400, 'The request path has a malformed percent-escape (it must encode UTF-8).'));
  }
  if (/%00/i.test(target) || target.includes('\0')) {
    return next(
      validationError([{ path: q >= 0 && /%00/i.test(target.slice(q)) ? 'query' : 'path', message: 'must not contain NUL (%00)' }]),
    );
  }
  next();
}

/**
 * Problems in parsed JSON that a schema cannot see or that a schema may forget: NUL in a string or
 * a key, numbers that overflowed to Infinity (`1e400`), nesting deeper than MAX_JSON_DEPTH.
 */
export function jsonValueProblems(value: unknown, root = ''): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: root, depth: 0 }];
  while (stack.length > 0 && problems.length < MAX_ERROR_DETAILS) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) problems.push({ path, message: 'must not contain NUL (U+0000)' });
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) problems.push({ path, message: 'must be a finite number' });
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_JSON_DEPTH) {
        problems.push({ path, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` });
        continue;
      }
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (const [k, x] of entries) {
        if (k.includes('\0')) {
          problems.push({ path: `${path}/${k.replaceAll('\0', '\\u0000')}`, message: 'field names must not contain NUL (U+0000)' });
          continue;
        }
        stack.push({ v: x, path: `${path}/${k}`, depth: depth + 1 });
      }
    }
  }
  return problems;
}

export function checkJsonValues(req: Request, _res: Response, next: NextFunction): void {
  const problems = jsonValueProblems(req.body);
  if (problems.length > 0) return next(validationError(problems));
  next();
}
