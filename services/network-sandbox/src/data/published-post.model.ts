import { type Connection, mongoose } from '@social/mongo';

export interface PublishedMedia {
  mimeType: string;
  url?: string;
  sha256?: string;
  sizeBytes?: number;
  durationSec?: number;
  width?: number;
  height?: number;
}

export interface PublishedLink {
  link: string;
  title?: string | null;
  description?: string | null;
  imageUrl?: string | null;
}

export interface PublishedPostDoc {
  /** The network post id. */
  _id: string;
  net: string;
  accountId: string;
  idempotencyKey: string;
  /** SHA-256 of the canonical content: the same key with other content is refused. */
  fingerprint: string;
  type: string;
  caption: string | null;
  firstComment: string | null;
  media: PublishedMedia[];
  links: PublishedLink[];
  /** The network object exactly as received; kept as JSON because its keys are the caller's. */
  settingsJson: string | null;
  publishedAt: Date;
}

const media = new mongoose.Schema<PublishedMedia>(
  { mimeType: String, url: String, sha256: String, sizeBytes: Number, durationSec: Number, width: Number, height: Number },
  { _id: false },
);
const link = new mongoose.Schema<PublishedLink>(
  { link: String, title: String, description: String, imageUrl: String },
  { _id: false },
);

const schema = new mongoose.Schema<PublishedPostDoc>(
  {
    _id: { type: String, required: true },
    net: { type: String, required: true },
    accountId: { type: String, required: true },
    idempotencyKey: { type: String, required: true },
    fingerprint: { type: String, required: true },
    type: { type: String, required: true },
    caption: { type: String, default: null },
    firstComment: { type: String, default: null },
    media: { type: [media], default: [] },
    links: { type: [link], default: [] },
    settingsJson: { type: String, default: null },
    publishedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'published_posts' },
);
// The guarantee behind idempotent publishing: a second insert with the same key fails, whatever
// the timing of concurrent requests.
schema.index({ net: 1, accountId: 1, idempotencyKey: 1 }, { unique: true });

export const publishedPostModel = (conn: Connection) => conn.model<PublishedPostDoc>('PublishedPost', schema);
