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
