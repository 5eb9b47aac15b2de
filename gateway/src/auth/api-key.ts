import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Keys are 256 random bits, so a plain SHA-256 is enough to make a stolen hash useless (no
 * dictionary to try), and it keeps verification well under a millisecond on every request.
 */
export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey, 'utf8').digest('hex');

export const newApiId = (): string => `aid_${randomBytes(12).toString('hex')}`;
export const newApiKey = (): string => `ask_${randomBytes(32).toString('base64url')}`;

// Compared against when the id is unknown, so unknown ids and wrong keys cost the same time.
const DUMMY_HASH = hashApiKey('dummy-key-for-constant-time-comparison');

/** Constant-time check of a presented key against a stored hash (or the dummy when absent). */
export function keyMatches(presented: string, storedHash: string | undefined): boolean {
  const a = Buffer.from(hashApiKey(presented), 'hex');
  const b = Buffer.from(storedHash ?? DUMMY_HASH, 'hex');
  const equal = a.length === b.length && timingSafeEqual(a, b);
  return equal && storedHash !== undefined;
}
