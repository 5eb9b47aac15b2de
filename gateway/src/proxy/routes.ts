export type UpstreamName = 'posts' | 'media' | 'competitors' | 'insights' | 'webhooks';

const KB = 1024;

/**
 * Which service answers which public path. Order matters: the insights paths under /profile and
 * /competitor are tested before the competitors service's /competitor paths.
 */
export const ROUTES: readonly { pattern: RegExp; upstream: UpstreamName; bodyLimitBytes: number }[] = [
  // Limits fit the content: a label is a name; a post holds at most one caption per network (the
  // longest is 63,206 characters) and a few lists; media and competitors bodies are a few fields.
  { pattern: /^\/v2\/labels(\/|$)/, upstream: 'posts', bodyLimitBytes: 4 * KB },
  { pattern: /^\/v2\/posts(\/|$)/, upstream: 'posts', bodyLimitBytes: 256 * KB },
  { pattern: /^\/v2\/media(\/|$)/, upstream: 'media', bodyLimitBytes: 16 * KB },
  { pattern: /^\/v2\/assistant(\/|$)/, upstream: 'media', bodyLimitBytes: 16 * KB },
  { pattern: /^\/v2\/profile\/[^/]+\/insights(\/|$)/, upstream: 'insights', bodyLimitBytes: 4 * KB },
  { pattern: /^\/v2\/competitor\/[^/]+\/insights(\/|$)/, upstream: 'insights', bodyLimitBytes: 4 * KB },
  { pattern: /^\/v2\/(profiles|competitors|competitor|search)(\/|$)/, upstream: 'competitors', bodyLimitBytes: 16 * KB },
  // An endpoint is a URL, a few event types and a description.
  { pattern: /^\/v2\/webhooks(\/|$)/, upstream: 'webhooks', bodyLimitBytes: 16 * KB },
];

export function upstreamFor(path: string): UpstreamName | undefined {
  return ROUTES.find((r) => r.pattern.test(path))?.upstream;
}

/** The largest body the route takes; BODY_LIMIT_BYTES caps every route. */
export function bodyLimitFor(path: string, ceiling: number): number {
  return Math.min(ROUTES.find((r) => r.pattern.test(path))?.bodyLimitBytes ?? ceiling, ceiling);
}

/**
 * A bounded label for metrics: the route family with ids replaced (`/v2/posts/*`,
 * `/v2/profile/:profileId/insights/*`); undefined for paths no service answers.
 */
export function routeLabelFor(path: string): string | undefined {
  const m = /^\/v2\/(profile|competitor)\/[^/]+\/insights(\/|$)/.exec(path);
  if (m) return `/v2/${m[1]}/:${m[1]}Id/insights/*`;
  if (path.startsWith('/storage/')) return '/storage/*';
  if (!upstreamFor(path)) return undefined;
  return `/v2/${path.split('/')[2]}/*`;
}
