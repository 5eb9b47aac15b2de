/**
 * The nine networks of the spec (section 2.1) plus `adNet`, the advertising network that only has
 * daily insights (spec 4.2: "including an advertising network"). The order is the spec's table order.
 */
export const NETWORK_CODES = [
  'generalNet',
  'photoNet',
  'photoNetV2',
  'professionalNet',
  'shortVideoNet',
  'conversationNet',
  'listingNet',
  'videoNet',
  'microblogNet',
  'adNet',
] as const;

export type NetworkCode = (typeof NETWORK_CODES)[number];

const CODES: ReadonlySet<string> = new Set(NETWORK_CODES);

export function isNetworkCode(value: unknown): value is NetworkCode {
  return typeof value === 'string' && CODES.has(value);
}
