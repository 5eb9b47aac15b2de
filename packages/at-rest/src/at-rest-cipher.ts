import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Values a service must read back in clear (network access tokens, webhook signing secrets) are
 * stored encrypted (AES-256-GCM, a fresh IV each time), so a database dump or backup hands out
 * neither publishing rights nor the means to forge a webhook. The key is the SHA-256 of a secret
 * setting (PROFILE_TOKEN_KEY, WEBHOOKS_SECRET_KEY); the version prefix leaves room for key rotation.
 */
export class AtRestCipher {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(secret, 'utf8').digest();
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(':');
  }

  decrypt(stored: string): string {
    const [version, iv, tag, data] = stored.split(':');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('unreadable stored value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether a stored value has this cipher's form (rows written before encryption have not). */
  static isEncrypted(stored: string): boolean {
    return stored.startsWith(`${VERSION}:`) && stored.split(':').length === 4;
  }
}
