import { checkPostContent, textLength } from './content-rules';

const jpeg = { mimeType: 'image/jpeg' };
const mp4 = { mimeType: 'video/mp4' };
const paths = (v: { path: string }[]) => v.map((x) => x.path);

describe('checkPostContent', () => {
  it('accepts a microblog post of exactly 280 characters and refuses 281', () => {
    expect(checkPostContent('microblogNet', { type: 'STATUS', caption: 'a'.repeat(280) })).toEqual([]);
    expect(checkPostContent('microblogNet', { type: 'STATUS', caption: 'a'.repeat(281) })).toEqual([
      { path: '/caption', message: 'must be at most 280 characters' },
    ]);
  });

  it('counts an emoji as one character', () => {
    expect(textLength('👍'.repeat(3))).toBe(3);
    expect(checkPostContent('microblogNet', { type: 'STATUS', caption: '👍'.repeat(280) })).toEqual([]);
  });

  it('allows 4 images or 1 video on microblogNet, never both', () => {
    expect(checkPostContent('microblogNet', { type: 'MEDIA', media: [jpeg, jpeg, jpeg, jpeg] })).toEqual([]);
    expect(paths(checkPostContent('microblogNet', { type: 'MEDIA', media: [jpeg, jpeg, jpeg, jpeg, jpeg] }))).toContain('/media');
    expect(checkPostContent('microblogNet', { type: 'MEDIA', media: [mp4] })).toEqual([]);
    expect(checkPostContent('microblogNet', { type: 'MEDIA', media: [jpeg, mp4] })).toEqual(
      expect.arrayContaining([{ path: '/media', message: 'images and videos cannot be combined in one post' }]),
    );
  });

  it('limits photoNet carousels to 10 items', () => {
    expect(checkPostContent('photoNet', { type: 'MEDIA', media: Array(10).fill(jpeg) })).toEqual([]);
    expect(checkPostContent('photoNetV2', { type: 'MEDIA', media: Array(11).fill(jpeg) })).toEqual([
      { path: '/media', message: 'at most 10 items' },
      { path: '/media', message: 'at most 10 images' },
    ]);
  });

  it('refuses images on shortVideoNet and videos on listingNet', () => {
    expect(checkPostContent('shortVideoNet', { type: 'MEDIA', media: [jpeg] })).toEqual([
      { path: '/media', message: 'images are not supported' },
    ]);
    expect(checkPostContent('listingNet', { type: 'MEDIA', media: [mp4] })).toEqual([
      { path: '/media', message: 'videos are not supported' },
    ]);
    expect(checkPostContent('listingNet', { type: 'MEDIA', media: [jpeg, jpeg] })).toEqual(
      expect.arrayContaining([{ path: '/media', message: 'at most 1 images' }]),
    );
  });

  it('needs exactly one video on videoNet and checks its title', () => {
    expect(checkPostContent('videoNet', { type: 'MEDIA', media: [mp4], settings: { title: 'x'.repeat(100) } })).toEqual([]);
    expect(paths(checkPostContent('videoNet', { type: 'MEDIA', media: [] }))).toEqual(['/media']);
    expect(paths(checkPostContent('videoNet', { type: 'MEDIA', media: [mp4, mp4] }))).toContain('/media');
    expect(checkPostContent('videoNet', { type: 'MEDIA', media: [mp4], settings: { title: 'x'.repeat(101) } })).toEqual([
      { path: '/settings/title', message: 'must be at most 100 characters' },
    ]);
  });

  it('refuses captions on stories and unsupported post types', () => {
    expect(checkPostContent('photoNet', { type: 'STORY', caption: 'hi', media: [jpeg] })).toEqual([
      { path: '/caption', message: 'Stories do not support captions on this network.' },
    ]);
    expect(checkPostContent('photoNet', { type: 'STORY', caption: '', media: [jpeg] })).toEqual([]);
    expect(paths(checkPostContent('professionalNet', { type: 'STORY', media: [jpeg] }))).toEqual(['/type']);
  });

  it('checks MIME types, sizes and durations against the network', () => {
    expect(checkPostContent('photoNet', { type: 'MEDIA', media: [{ mimeType: 'image/gif' }] })).toEqual([
      { path: '/media/0/mimeType', message: 'image/gif is not accepted (accepted: image/jpeg, image/png, video/mp4, video/quicktime)' },
    ]);
    expect(paths(checkPostContent('microblogNet', { type: 'MEDIA', media: [{ mimeType: 'video/mp4', durationSec: 141 }] }))).toEqual([
      '/media/0/durationSec',
    ]);
    expect(
      paths(checkPostContent('listingNet', { type: 'MEDIA', media: [{ mimeType: 'image/png', sizeBytes: 6 * 1024 * 1024 }] })),
    ).toEqual(['/media/0/sizeBytes']);
  });

  it('knows which networks take first comments and links', () => {
    expect(paths(checkPostContent('shortVideoNet', { type: 'MEDIA', media: [mp4], firstComment: 'first!' }))).toEqual(['/firstComment']);
    expect(checkPostContent('generalNet', { type: 'LINK', caption: 'read', links: [{ link: 'https://a.example' }] })).toEqual([]);
    expect(paths(checkPostContent('generalNet', { type: 'LINK', caption: 'read', links: [] }))).toEqual(['/links']);
    expect(paths(checkPostContent('photoNet', { type: 'MEDIA', media: [jpeg], links: [{}] }))).toEqual(['/links']);
  });

  it('checks polls and generalNet carousels', () => {
    expect(checkPostContent('conversationNet', { type: 'STATUS', caption: 'vote', settings: { poll: ['a', 'b'] } })).toEqual([]);
    expect(paths(checkPostContent('conversationNet', { type: 'STATUS', caption: 'vote', settings: { poll: ['a'] } }))).toEqual([
      '/settings/poll',
    ]);
    expect(paths(checkPostContent('microblogNet', { type: 'STATUS', caption: 'v', settings: { poll: ['a', 'x'.repeat(26)] } }))).toEqual([
      '/settings/poll/1',
    ]);
    expect(
      paths(checkPostContent('microblogNet', { type: 'STATUS', caption: 'v', settings: { poll: ['a', 'b'], pollDuration: 4 } })),
    ).toEqual(['/settings/pollDuration']);
    expect(paths(checkPostContent('generalNet', { type: 'MEDIA', media: [jpeg], settings: { carousels: [{}] } }))).toEqual([
      '/settings/carousels',
    ]);
    expect(paths(checkPostContent('photoNet', { type: 'MEDIA', media: [jpeg], settings: { poll: ['a', 'b'] } }))).toEqual([
      '/settings/poll',
    ]);
  });

  it('refuses publishing to adNet', () => {
    expect(checkPostContent('adNet', { type: 'STATUS', caption: 'x' })).toEqual([
      { path: '', message: 'Ad Net does not support publishing.' },
    ]);
  });
});
