import { validationError, type ErrorDetail } from '@social/errors';
import { csv, parsePage } from '@social/http';
import { isNetworkCode, NETWORK_CODES, type NetworkCode } from '@social/networks';
import type { ListFilter, Page } from '../domain/ports';

const MAX_QUERY = 200;

/** A single string parameter; repeated parameters (`?a=1&a=2`) are a 400, not a silent pick. */
export function stringParam(query: Record<string, unknown>, key: string, details: ErrorDetail[]): string | undefined {
  const raw = query[key];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') {
    details.push({ path: `/query/${key}`, message: 'must be given once, as a string' });
    return undefined;
  }
  if (raw.length > MAX_QUERY) {
    details.push({ path: `/query/${key}`, message: `must be at most ${MAX_QUERY} characters` });
    return undefined;
  }
  return raw;
}

export function netsParam(query: Record<string, unknown>, details: ErrorDetail[]): NetworkCode[] | undefined {
  if (query['net'] !== undefined && typeof query['net'] !== 'string') {
    details.push({ path: '/query/net', message: 'must be given once, as comma-separated network codes' });
    return undefined;
  }
  const nets = csv(query['net']);
  if (!nets) return undefined;
  const unknown = nets.filter((n) => !isNetworkCode(n));
  if (unknown.length > 0) {
    details.push({ path: '/query/net', message: `unknown network code(s) ${unknown.join(', ')}; valid: ${NETWORK_CODES.join(', ')}` });
    return undefined;
  }
  return nets as NetworkCode[];
}

/** GET /profiles and GET /competitors: skip, take, query (text), net (comma-separated codes). */
export function parseListQuery(query: Record<string, unknown>): { filter: ListFilter; page: Page } {
  const details: ErrorDetail[] = [];
  const page = parsePage(query, details);
  const text = stringParam(query, 'query', details)?.trim();
  const nets = netsParam(query, details);
  if (details.length > 0) throw validationError(details);
  return { page, filter: { ...(text ? { query: text } : {}), ...(nets && nets.length > 0 ? { nets } : {}) } };
}
