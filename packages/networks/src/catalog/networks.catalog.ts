import type { NetworkCode } from './network-codes';
import type { IdempotencyTraits, MediaLimits, NetworkInfo, PollLimits } from './types';

// Where the numbers come from (written once here; posts validates with them, the sandbox enforces them):
// - [spec]  api-spec.md section 2.2 (network objects) and section 8 (limits).
// - [issue] the networks issue that introduced this package: caption lengths and item counts per network.
// - [kind]  the public documentation of the kind of network each code stands in for (sizes, durations,
//           MIME types); the spec says "not shown" for these, so we chose realistic values.

const MB = 1024 * 1024;
const GB = 1024 * MB;

const JPEG_PNG = ['image/jpeg', 'image/png'] as const;
const JPEG_PNG_GIF = ['image/jpeg', 'image/png', 'image/gif'] as const;
const MP4_MOV = ['video/mp4', 'video/quicktime'] as const;

/** [spec] section 8: poll options of the conversation and microblog networks. */
const POLL: PollLimits = { minOptions: 2, maxOptions: 4, maxOptionLength: 25 };

/**
 * [kind] Idempotency of publish requests. Most real networks keep no keys: a repeated request is a
 * second post, so exactly-once publishing rests on the publisher's own ledger and on reading the
 * account's recent posts. A few keep a client request key for about a day.
 */
const NO_KEYS: IdempotencyTraits = { keys: 'none' };
const KEYS_FOR_A_DAY: IdempotencyTraits = { keys: 'window', windowMs: 24 * 3600_000 };

/**
 * [kind] How long a network works on a publish before it stores the post or abandons the request
 * (its gateway answers 504 then); after that, its listing is the truth about the request.
 */
const MAX_PROCESSING_MS = 30_000;

const noVideo = { videoTypes: [], maxVideos: 0, maxVideoBytes: 0, maxVideoDurationSec: 0 } as const;
const noImages = { imageTypes: [], maxImages: 0, maxImageBytes: 0 } as const;

const generalNet: NetworkInfo = {
  code: 'generalNet',
  name: 'General Net',
  metricPrefix: 'gn',
  publishing: {
    idempotency: NO_KEYS, // [kind] a general social network's page-post API: no idempotency keys
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['STATUS', 'MEDIA', 'STORY', 'LINK', 'REEL'],
    storyCaptions: false, // [spec] 2.2 rule 3
    firstComment: true,
    maxLinks: 1,
    text: { caption: 63_206, firstComment: 8_000 }, // [issue] caption; [kind] comment length
    media: {
      // [kind] albums of up to 10 items, photos to 10 MB, videos to 4 GB and 240 minutes
      imageTypes: JPEG_PNG_GIF,
      videoTypes: MP4_MOV,
      maxItems: 10,
      maxImages: 10,
      maxVideos: 1,
      mixImagesAndVideos: false,
      maxImageBytes: 10 * MB,
      maxVideoBytes: 4 * GB,
      maxVideoDurationSec: 240 * 60,
    },
    carouselCards: { min: 2, max: 10 }, // [spec] 2.2 rule 4 and section 8 (min); [kind] max
  },
  insights: { daily: true, posts: true },
  profileSearch: 'name', // [spec] 4.1
};

/** [issue] photoNet and photoNetV2 are one kind of network: same limits, carousels of at most 10. */
const photoMedia: MediaLimits = {
  // [kind] JPEG/PNG to 8 MB; videos to 1 GB and 15 minutes (reels), at least 3 seconds
  imageTypes: JPEG_PNG,
  videoTypes: MP4_MOV,
  maxItems: 10,
  maxImages: 10,
  maxVideos: 10,
  mixImagesAndVideos: true,
  maxImageBytes: 8 * MB,
  maxVideoBytes: 1 * GB,
  maxVideoDurationSec: 15 * 60,
  minVideoDurationSec: 3,
};

const photoNet: NetworkInfo = {
  code: 'photoNet',
  name: 'Photo Net',
  metricPrefix: 'pn',
  publishing: {
    idempotency: NO_KEYS, // [kind] a photo network's container-then-publish API: no idempotency keys
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['MEDIA', 'STORY', 'REEL'],
    storyCaptions: false, // [spec] 2.2 rule 3
    firstComment: true,
    maxLinks: 0, // [kind] captions do not render links; there are no link posts
    text: { caption: 2_200, firstComment: 2_200 }, // [issue] caption; [kind] comment
    media: photoMedia,
  },
  insights: { daily: true, posts: true },
  profileSearch: 'username', // [spec] 4.1: exact username, business or creator accounts only
};

const photoNetV2: NetworkInfo = {
  ...photoNet,
  code: 'photoNetV2',
  name: 'Photo Net (v2)',
  metricPrefix: 'pn2',
};

const professionalNet: NetworkInfo = {
  code: 'professionalNet',
  name: 'Professional Net',
  metricPrefix: 'pro',
  publishing: {
    idempotency: KEYS_FOR_A_DAY, // [kind] a professional network's posts API: a client request key deduplicates for 24 h
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['STATUS', 'MEDIA', 'LINK'],
    storyCaptions: false,
    firstComment: true,
    maxLinks: 1,
    text: { caption: 3_000, firstComment: 1_250, settingsFields: { documentTitle: 400 } }, // [issue]; [kind]
    media: {
      // [kind] multi-image posts of up to 20 images; one video of 75 KB to 500 MB, 3 s to 30 min
      imageTypes: JPEG_PNG_GIF,
      videoTypes: ['video/mp4'],
      maxItems: 20,
      maxImages: 20,
      maxVideos: 1,
      mixImagesAndVideos: false,
      maxImageBytes: 8 * MB,
      maxVideoBytes: 500 * MB,
      maxVideoDurationSec: 30 * 60,
      minVideoDurationSec: 3,
    },
  },
  insights: { daily: true, posts: true },
  profileSearch: null,
};

const shortVideoNet: NetworkInfo = {
  code: 'shortVideoNet',
  name: 'Short Video Net',
  metricPrefix: 'sv',
  publishing: {
    idempotency: NO_KEYS, // [kind] a short-video network's direct-post API: no idempotency keys
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['MEDIA', 'REEL'],
    storyCaptions: false,
    firstComment: false,
    maxLinks: 0,
    // [issue] caption 2,200 (video only); [kind] title: the spec leaves it "not shown", we chose 90
    text: { caption: 2_200, settingsFields: { title: 90 } },
    media: {
      // [issue] video only; [kind] MP4/MOV/WebM to 4 GB, 3 s to 10 minutes through the API
      ...noImages,
      videoTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
      maxItems: 1,
      maxVideos: 1,
      mixImagesAndVideos: false,
      maxVideoBytes: 4 * GB,
      maxVideoDurationSec: 10 * 60,
      minVideoDurationSec: 3,
    },
  },
  insights: { daily: true, posts: true },
  profileSearch: null,
};

const conversationNet: NetworkInfo = {
  code: 'conversationNet',
  name: 'Conversation Net',
  metricPrefix: 'cv',
  publishing: {
    idempotency: NO_KEYS, // [kind] a threads-style conversation network: no idempotency keys
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['STATUS', 'MEDIA', 'LINK'],
    storyCaptions: false,
    firstComment: true, // posted as the first reply of the thread
    maxLinks: 1,
    text: { caption: 500, firstComment: 500 }, // [issue]
    media: {
      // [kind] carousels of up to 20 items mixing images (8 MB) and videos (1 GB, 5 minutes)
      imageTypes: JPEG_PNG,
      videoTypes: MP4_MOV,
      maxItems: 20,
      maxImages: 20,
      maxVideos: 20,
      mixImagesAndVideos: true,
      maxImageBytes: 8 * MB,
      maxVideoBytes: 1 * GB,
      maxVideoDurationSec: 5 * 60,
    },
    poll: POLL,
  },
  insights: { daily: true, posts: true },
  profileSearch: null,
};

const listingNet: NetworkInfo = {
  code: 'listingNet',
  name: 'Listing Net',
  metricPrefix: 'ls',
  publishing: {
    idempotency: NO_KEYS, // [kind] a business-listing network's local posts API: no idempotency keys
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['STATUS', 'MEDIA'],
    storyCaptions: false,
    firstComment: false,
    maxLinks: 0, // links go in the network object (ctaLink, redeemOnlineUrl)
    text: {
      caption: 1_500, // [issue]
      // [spec] 2.2 and section 8
      settingsFields: { title: 58, ctaLink: 255, redeemOnlineUrl: 255, couponCode: 100, termConditions: 5_000 },
    },
    media: {
      // [issue] at most one image, no video; [kind] JPEG/PNG to 5 MB
      ...noVideo,
      imageTypes: JPEG_PNG,
      maxItems: 1,
      maxImages: 1,
      mixImagesAndVideos: false,
      maxImageBytes: 5 * MB,
    },
  },
  insights: { daily: true, posts: false }, // [spec] 4.2: daily only
  profileSearch: null,
};

const videoNet: NetworkInfo = {
  code: 'videoNet',
  name: 'Video Net',
  metricPrefix: 'vd',
  publishing: {
    idempotency: KEYS_FOR_A_DAY, // [kind] a video network's upload API: a request key deduplicates uploads for 24 h
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['MEDIA', 'REEL'],
    storyCaptions: false,
    firstComment: false,
    maxLinks: 0,
    // [issue] description 5,000; title 100 ([spec] 2.2 and section 8)
    text: { caption: 5_000, settingsFields: { title: 100 } },
    media: {
      // [issue] exactly one video; [kind] to 256 GB and 12 hours
      ...noImages,
      videoTypes: ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-msvideo'],
      maxItems: 1,
      maxVideos: 1,
      mixImagesAndVideos: false,
      maxVideoBytes: 256 * GB,
      maxVideoDurationSec: 12 * 60 * 60,
    },
  },
  insights: { daily: true, posts: true },
  profileSearch: null,
};

const microblogNet: NetworkInfo = {
  code: 'microblogNet',
  name: 'Microblog Net',
  metricPrefix: 'mb',
  publishing: {
    idempotency: NO_KEYS, // [kind] a microblog's create-post API: no idempotency keys
    maxProcessingMs: MAX_PROCESSING_MS,
    postTypes: ['STATUS', 'MEDIA', 'LINK'],
    storyCaptions: false,
    firstComment: true, // posted as a reply to the post
    maxLinks: 1,
    text: { caption: 280, firstComment: 280 }, // [issue]
    media: {
      // [issue] at most 4 images or 1 video, not both; [kind] images 5 MB, video 512 MB and 140 s
      imageTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
      videoTypes: MP4_MOV,
      maxItems: 4,
      maxImages: 4,
      maxVideos: 1,
      mixImagesAndVideos: false,
      maxImageBytes: 5 * MB,
      maxVideoBytes: 512 * MB,
      maxVideoDurationSec: 140,
    },
    poll: { ...POLL, minDurationMinutes: 5, maxDurationMinutes: 10_080 }, // [spec] section 8
  },
  insights: { daily: false, posts: false }, // [spec] 4.2: not supported
  profileSearch: null,
};

const adNet: NetworkInfo = {
  code: 'adNet',
  name: 'Ad Net',
  metricPrefix: 'ad',
  publishing: null, // an advertising account: read-only
  insights: { daily: true, posts: false }, // [issue] daily insights only
  profileSearch: null,
};

export const NETWORKS: Readonly<Record<NetworkCode, NetworkInfo>> = {
  generalNet,
  photoNet,
  photoNetV2,
  professionalNet,
  shortVideoNet,
  conversationNet,
  listingNet,
  videoNet,
  microblogNet,
  adNet,
};
