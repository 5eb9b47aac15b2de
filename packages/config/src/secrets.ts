/**
 * Every value a secret ever had as a default, an example or a test fixture in this repository. A
 * deployment that still runs with one is open to anyone who has read the code, so start-up refuses
 * them (old versions of docker-compose.yml, deploy/, packages/config and the test kit).
 */
export const KNOWN_WEAK_SECRETS: readonly string[] = [
  'dev-only-internal-secret-change-me',
  'dev-only-storage-secret-change-me',
  'dev-only-profile-token-key-change-me',
  'change-me-in-production-0123456789',
  'change-me-too-in-production-0123456789',
  'change-me-profile-token-key-0123456789',
  'CHANGE-ME-at-least-16-characters',
  'test-internal-secret-0123456789',
  'test-secret-0123456789',
];

/** Shorter secrets can be guessed or brute-forced offline (an HMAC signature is a perfect oracle). */
export const MIN_SECRET_LENGTH = 32;

/** Why a secret must not be used, or undefined when it is fine. */
export function weakSecretReason(value: string): string | undefined {
  if (KNOWN_WEAK_SECRETS.includes(value)) return 'is a published default value';
  if (/change[-_ ]?me|placeholder|example/i.test(value)) return 'is a placeholder';
  if (value.length < MIN_SECRET_LENGTH) return `is shorter than ${MIN_SECRET_LENGTH} characters`;
  if (new Set(value).size < 8) return 'repeats too few characters';
  return undefined;
}

export const SECRET_HINT = 'generate one with `openssl rand -base64 32` (pnpm start makes its own, in .local/secrets.env)';
