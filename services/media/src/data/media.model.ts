import { Schema, type Connection, type Model } from 'mongoose';
import type { MediaRecord } from '../domain/media.types';

/** A media as stored: the domain's MediaRecord, one document per media in `media`. */
export type MediaDoc = MediaRecord;

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
