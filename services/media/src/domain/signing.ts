import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed addresses of the storage host. The signature covers the method, the path (which names the
 * media and the file) and the expiry, so an address cannot be reused for another file, another
 * method or after it expires.
 */
export class UrlSigner {
  constructor(
    private readonly secret: string,
    private readonly publicBaseUrl: string,
  ) {}

  sign(method: string, path: string, expiresAt: Date): string {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const sig = this.signature(method, path, expires);
    return `${this.publicBaseUrl.replace(/\/+$/, '')}${path}?expires=${expires}&sig=${sig}`;
  }

  /** 'ok', or why the address is refused (both are answered with 403; the reason is for logs). */
  verify(method: string, path: string, query: Record<string, unknown>, now = new Date()): 'ok' | 'missing' | 'expired' | 'bad-signature' {
    const { expires, sig } = query;
    if (typeof expires !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(sig)) {
      return 'missing';
    }
    const expected = Buffer.from(this.signature(method, path, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'bad-signature';
    if (Number(expires) * 1000 < now.getTime()) return 'expired';
    return 'ok';
  }

  private signature(method: string, path: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${method.toUpperCase()}\n${path}\n${expires}`).digest('hex');
  }
}

export const uploadPath = (mediaId: string) => `/storage/uploads/${encodeURIComponent(mediaId)}`;
export const filePath = (mediaId: string, variant: 'original' | 'preview') => `/storage/files/${encodeURIComponent(mediaId)}/${variant}`;
