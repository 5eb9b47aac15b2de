import { detectType } from './detect-type';

const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc(64)]);

describe('detectType', () => {
  it.each([
    ['JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg', 'IMAGE'],
    ['PNG', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png', 'IMAGE'],
    ['GIF', Buffer.from('GIF89a'), 'image/gif', 'GIF'],
    ['WebP', Buffer.from('RIFF\0\0\0\0WEBPVP8 '), 'image/webp', 'IMAGE'],
    ['MP4', Buffer.from('\0\0\0\x20ftypisom'), 'video/mp4', 'VIDEO'],
    ['QuickTime', Buffer.from('\0\0\0\x14ftypqt  '), 'video/quicktime', 'VIDEO'],
    ['M4A', Buffer.from('\0\0\0\x20ftypM4A '), 'audio/mp4', 'AUDIO'],
    ['WebM', Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), 'video/webm', 'VIDEO'],
    ['MP3', Buffer.from('ID3\x04'), 'audio/mpeg', 'AUDIO'],
    ['WAV', Buffer.from('RIFF\0\0\0\0WAVEfmt '), 'audio/wav', 'AUDIO'],
  ])('recognizes %s from its bytes', (_n, head, mimeType, kind) => {
    expect(detectType(pad(head))).toEqual({ mimeType, kind });
  });

  it('does not recognize text or random bytes', () => {
    expect(detectType(pad(Buffer.from('<html><body>not an image')))).toBeNull();
    expect(detectType(Buffer.alloc(64, 0x41))).toBeNull();
  });
});
