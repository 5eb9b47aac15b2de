export type UpstreamName = 'posts' | 'media' | 'competitors' | 'insights';

/**
 * Which service answers which public path. Order matters: the insights paths under /profile and
 * /competitor are tested before the competitors service's /competitor paths.
 */
export const ROUTES: readonly { pattern: RegExp; upstream: UpstreamName }[] = [
  { pattern: /^\/v2\/labels(\/|$)/, upstream: 'posts' },
  { pattern: /^\/v2\/posts(\/|$)/, upstream: 'posts' },
  { pattern: /^\/v2\/media(\/|$)/, upstream: 'media' },
  { pattern: /^\/v2\/assistant(\/|$)/, upstream: 'media' },
  { pattern: /^\/v2\/profile\/[^/]+\/insights(\/|$)/, upstream: 'insights' },
  { pattern: /^\/v2\/competitor\/[^/]+\/insights(\/|$)/, upstream: 'insights' },
  { pattern: /^\/v2\/(profiles|competitors|competitor|search)(\/|$)/, upstream: 'competitors' },
];

export function upstreamFor(path: string): UpstreamName | undefined {
  return ROUTES.find((r) => r.pattern.test(path))?.upstream;
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
