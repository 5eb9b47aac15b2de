import { parsePublicKeys } from './keys';
import { TokenVerifier } from './tokens';

/** The verifier of one audience over INTERNAL_JWT_PUBLIC_KEYS (a malformed value names the variable). */
export function verifierFor(publicKeys: string, audience: string): TokenVerifier {
  return new TokenVerifier(parsePublicKeys(publicKeys, 'INTERNAL_JWT_PUBLIC_KEYS'), audience);
}
