import { type Connection, mongoose } from '@social/mongo';
import type { PublishedLink, PublishedMedia } from '../domain/ports';

export interface PublishedPostDoc {
  /** The network post id. */
  _id: string;
  net: string;
  accountId: string;
  /**
   * The Idempotency-Key header of the request that created the post, kept for test accounting
   * (the admin API counts posts per client key); never shown to the network's clients.
   */
  clientKey: string;
  /**
   * Only on networks that keep keys, while this post holds its key: unique (see the index), so of
   * concurrent requests with one key exactly one insert succeeds. Removed (compare-and-set) when
   * the key's window has passed and the key is used again.
   */
  heldKey?: string;
  /** SHA-256 of the canonical content, signed URLs included: the same key with other content is refused. */
  fingerprint: string;
  type: string;
  caption: string | null;
  firstComment: string | null;
  media: PublishedMedia[];
  links: PublishedLink[];
  /** The network object exactly as received; kept as JSON because its keys are the caller's. */
  settingsJson: string | null;
  publishedAt: Date;
  /**
   * Hours since 1970 of publishedAt: the listing reads an account's recent posts one hour at a
   * time by equality, which FerretDB answers from the index (it does not push ranges down).
   */
  publishedHour: number;
}

export const HOUR_MS = 3_600_000;
export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

const media = new mongoose.Schema<PublishedMedia>(
  { mimeType: String, url: String, sha256: String, sizeBytes: Number, durationSec: Number, width: Number, height: Number },
  { _id: false },
);
const link = new mongoose.Schema<PublishedLink>({ link: String, title: String, description: String, imageUrl: String }, { _id: false });

const schema = new mongoose.Schema<PublishedPostDoc>(
  {
    _id: { type: String, required: true },
    net: { type: String, required: true },
    accountId: { type: String, required: true },
    clientKey: { type: String, required: true },
    heldKey: { type: String },
    fingerprint: { type: String, required: true },
    type: { type: String, required: true },
    caption: { type: String, default: null },
    firstComment: { type: String, default: null },
    media: { type: [media], default: [] },
    links: { type: [link], default: [] },
    settingsJson: { type: String, default: null },
    publishedAt: { type: Date, required: true },
    publishedHour: { type: Number, required: true },
  },
  { versionKey: false, collection: 'published_posts' },
);
// The guarantee behind keys kept for a window: a second insert holding the same key fails, whatever
// the timing of concurrent requests. Sparse: posts that hold no key are not in it (MongoDB skips
// them; FerretDB keeps them as NULLs, which never collide).
schema.index({ heldKey: 1 }, { unique: true, sparse: true });
// An account's posts by hour: the recent-posts listing (and post metrics, by its prefix).
schema.index({ net: 1, accountId: 1, publishedHour: -1 });

/** The unique index of the version that kept every key forever; dropped at start (see the repository). */
export const LEGACY_KEY_INDEX = 'net_1_accountId_1_idempotencyKey_1';

export const publishedPostModel = (conn: Connection) => conn.model<PublishedPostDoc>('PublishedPost', schema);
