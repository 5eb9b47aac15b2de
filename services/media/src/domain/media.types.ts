/** The media of the library as the domain knows it; data/media.repository.ts stores it as it is. */

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

export interface MediaRecord {
  /** An id from MediaRecords.newId() (ObjectId hex). */
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

/** A media before it is stored (the store sets createdAt and updatedAt). */
export type NewMedia = Omit<MediaRecord, 'createdAt' | 'updatedAt'>;
