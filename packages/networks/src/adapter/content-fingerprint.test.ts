import { createHash } from 'node:crypto';
import { contentFingerprint } from './content-fingerprint';
import type { PublishPost } from './network-adapter';

const sent = (signature: string): PublishPost => ({
  type: 'MEDIA',
  caption: 'Autumn collection 🍂',
  firstComment: 'Link in bio',
  media: [
    {
      mimeType: 'image/jpeg',
      url: `https://storage.example/m/1.jpg?X-Expires=60&X-Signature=${signature}`,
      sizeBytes: 123_456,
      width: 1080,
      height: 1080,
    },
    { mimeType: 'video/mp4', fetchBytes: async () => new Uint8Array([1, 2, 3]), durationSec: 12 },
  ],
  links: [
    { link: 'https://shop.example/autumn', title: 'Shop', description: 'Now', imageUrl: `https://storage.example/l.png?sig=${signature}` },
  ],
  settings: { shareToFeed: true },
});

/** The same post as a network lists it: only the fields listings echo, media by type. */
const listed: PublishPost = {
  type: 'MEDIA',
  caption: 'Autumn collection 🍂',
  firstComment: 'Link in bio',
  media: [{ mimeType: 'image/jpeg' }, { mimeType: 'video/mp4' }],
  links: [{ link: 'https://shop.example/autumn', title: 'Shop (as the network shortened it)', description: null }],
  settings: null,
};

describe('contentFingerprint', () => {
  it('is equal for a post as sent (signed URLs, sizes, settings) and the same post as listed', () => {
    expect(contentFingerprint(sent('aaa'))).toBe(contentFingerprint(listed));
  });

  it('is equal across tries whose signed URLs differ', () => {
    expect(contentFingerprint(sent('first-try'))).toBe(contentFingerprint(sent('second-try')));
  });

  it('differs when what a listing shows differs', () => {
    const base = contentFingerprint(listed);
    expect(contentFingerprint({ ...listed, caption: 'Autumn collection' })).not.toBe(base);
    expect(contentFingerprint({ ...listed, type: 'REEL' })).not.toBe(base);
    expect(contentFingerprint({ ...listed, firstComment: null })).not.toBe(base);
    expect(contentFingerprint({ ...listed, media: [...listed.media].reverse() })).not.toBe(base);
    expect(contentFingerprint({ ...listed, links: [{ link: 'https://shop.example/winter' }] })).not.toBe(base);
  });

  it('is the SHA-256 of the canonical JSON of type, texts, link targets and media types', () => {
    const post: PublishPost = {
      type: 'STATUS',
      caption: 'hi',
      firstComment: undefined as unknown as null,
      media: [],
      links: [{ link: 'https://x.example' }],
      settings: null,
    };
    const canonical = '{"caption":"hi","firstComment":null,"links":["https://x.example"],"mediaTypes":[],"type":"STATUS"}';
    expect(contentFingerprint(post)).toBe(createHash('sha256').update(canonical).digest('hex'));
  });
});
