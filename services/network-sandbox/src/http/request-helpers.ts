import type { Request } from 'express';
import { isNetworkCode, type NetworkCode } from '@social/networks';
import { networkNotFound } from '../domain/sandbox.errors';

export function netOf(req: Request): NetworkCode {
  const net = req.params['net'];
  if (!isNetworkCode(net)) throw networkNotFound(String(net));
  return net;
}

export function bearerOf(req: Request): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

export function queryString(req: Request, name: string): string | undefined {
  const v = req.query[name];
  return typeof v === 'string' ? v : undefined;
}

export function param(req: Request, name: string): string {
  return req.params[name] ?? '';
}
