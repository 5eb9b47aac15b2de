import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runWithContext } from '@social/logger';

export const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's request id when it is sane, otherwise makes one. */
export function requestIdOf(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v && VALID_REQUEST_ID.test(v) ? v : randomUUID();
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
      /** Set by internal auth: the workspace every query of this request is scoped to. */
      auth?: { workspaceId: string; plan?: string };
    }
  }
}

/** Request id on the request, the response and every log line written while handling it. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const requestId = requestIdOf(req.headers[REQUEST_ID_HEADER]);
  req.requestId = requestId;
  res.setHeader('X-Request-Id', requestId);
  runWithContext({ requestId }, next);
}

/** The workspace of an authenticated request; a route without it is a programming error. */
export function workspaceOf(req: Request): string {
  if (!req.auth) throw new Error('workspaceOf called on a route without internal auth');
  return req.auth.workspaceId;
}
