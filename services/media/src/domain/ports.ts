/** Sends a media to the processing workers. */
export interface ProcessingQueue {
  enqueue(job: { mediaId: string; workspaceId: string }): Promise<void>;
}

/** How posts use a media (asked of the posts service). */
export interface MediaUsage {
  count(workspaceId: string, mediaId: string): Promise<{ total: number; scheduled: number }>;
}
