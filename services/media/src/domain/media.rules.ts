import type { DestinationType } from './media.types';

/** A new media with nothing known yet beyond its name and destination: PROCESSING, no file. */
export function blank(id: string, workspaceId: string, name: string, destinationType: DestinationType) {
  return {
    _id: id,
    workspaceId,
    name,
    destinationType,
    status: 'PROCESSING' as const,
    mimeType: null,
    kind: null,
    specs: null,
    declaredSpecs: null,
    fileUrl: null,
    fileId: null,
    incomingId: null,
    uploadedContentType: null,
    previewId: null,
    errorReason: null,
  };
}
