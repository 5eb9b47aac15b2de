import { Schema, type Connection, type Model } from 'mongoose';

export type MediaStatus = 'PROCESSING' | 'SUCCESS' | 'ERROR' | 'ARCHIVED';
export type MediaSource = 'UPLOAD' | 'URL' | 'GENERATED';
/** Where an upload stands: PENDING (no bytes yet), UPLOADED (bytes, not confirmed), CONFIRMED. */
export type UploadState = 'PENDING' | 'UPLOADED' | 'CONFIRMED';
export type MediaKind = 'IMAGE' | 'GIF' | 'VIDEO' | 'AUDIO';
export type DestinationType = 'POST_MEDIA' | 'POST_LINK';

export interface MediaSpecs {
  width: number | null;
  height: number | null;
  duration: number | null;
  fileSizeBytes: number;
  fps: number | null;
}

export interface MediaDoc {
  _id: string;
  workspaceId: string;
  name: string;
  destinationType: DestinationType;
  source: MediaSource;
  status: MediaStatus;
  uploadState: UploadState;
  /** Kept while the upload is unconfirmed so the sweep finds candidates with an equality filter. */
  unconfirmed: boolean;
  mimeType: string | null;
  kind: MediaKind | null;
  specs: MediaSpecs | null;
  declaredSpecs: Partial<MediaSpecs> | null;
  fileUrl: string | null;
  fileId: string | null;
  /**
   * The key a direct (presigned) upload to the store was given; adopted as fileId at confirmation
   * when the store holds it. Null when uploads go through the service.
   */
  incomingId: string | null;
  uploadedContentType: string | null;
  previewId: string | null;
  errorReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const specsSchema = new Schema(
  {
    width: { type: Number, default: null },
    height: { type: Number, default: null },
    duration: { type: Number, default: null },
    fileSizeBytes: { type: Number, default: null },
    fps: { type: Number, default: null },
  },
  { _id: false },
);

const mediaSchema = new Schema<MediaDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    name: { type: String, required: true },
    destinationType: { type: String, required: true },
    source: { type: String, required: true },
    status: { type: String, required: true },
    uploadState: { type: String, required: true },
    unconfirmed: { type: Boolean, required: true },
    mimeType: { type: String, default: null },
    kind: { type: String, default: null },
    specs: { type: specsSchema, default: null },
    declaredSpecs: { type: specsSchema, default: null },
    fileUrl: { type: String, default: null },
    fileId: { type: String, default: null },
    incomingId: { type: String, default: null },
    uploadedContentType: { type: String, default: null },
    previewId: { type: String, default: null },
    errorReason: { type: String, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'media' },
);
// Every API query has the workspace as an equality key; the sweep looks up unconfirmed uploads.
mediaSchema.index({ workspaceId: 1, _id: 1 });
mediaSchema.index({ unconfirmed: 1 });

export const mediaModel = (conn: Connection) =>
  (conn.models['Media'] as Model<MediaDoc> | undefined) ?? conn.model<MediaDoc>('Media', mediaSchema);
