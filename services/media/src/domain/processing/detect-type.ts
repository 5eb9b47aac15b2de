import type { MediaKind } from '../media.types';

export interface DetectedType {
  mimeType: string;
  kind: MediaKind;
}

/** MIME types the upload accepts in Content-Type; the stored type is always the one detected from the bytes. */
export const ACCEPTED_UPLOAD_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'audio/mpeg',
  'audio/mp4',
  'audio/wav',
  'audio/ogg',
] as const;

const at = (buf: Buffer, offset: number, bytes: number[]) => bytes.every((b, i) => buf[offset + i] === b);
const ascii = (buf: Buffer, offset: number, text: string) => buf.toString('latin1', offset, offset + text.length) === text;

/** The type of a file from its first bytes (at least 64 of them), never from a header or a name. */
export function detectType(head: Buffer): DetectedType | null {
  if (at(head, 0, [0xff, 0xd8, 0xff])) return { mimeType: 'image/jpeg', kind: 'IMAGE' };
  if (at(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mimeType: 'image/png', kind: 'IMAGE' };
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return { mimeType: 'image/gif', kind: 'GIF' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return { mimeType: 'image/webp', kind: 'IMAGE' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return { mimeType: 'audio/wav', kind: 'AUDIO' };
  if (ascii(head, 4, 'ftyp')) {
    const brand = head.toString('latin1', 8, 12);
    if (brand === 'qt  ') return { mimeType: 'video/quicktime', kind: 'VIDEO' };
    if (brand === 'M4A ' || brand === 'M4B ') return { mimeType: 'audio/mp4', kind: 'AUDIO' };
    return { mimeType: 'video/mp4', kind: 'VIDEO' };
  }
  if (at(head, 0, [0x1a, 0x45, 0xdf, 0xa3])) return { mimeType: 'video/webm', kind: 'VIDEO' };
  if (ascii(head, 0, 'OggS')) return { mimeType: 'audio/ogg', kind: 'AUDIO' };
  if (ascii(head, 0, 'ID3') || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0)) return { mimeType: 'audio/mpeg', kind: 'AUDIO' };
  return null;
}
