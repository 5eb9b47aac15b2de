import type { PublishRequested } from '@social/contracts';

/** Where publish jobs go: confirmed publishes on the broker (a stub in unit tests). */
export interface JobQueue {
  publishJob(job: PublishRequested, workspaceId: string): Promise<void>;
  /** The watchdog's question to the publisher: settle this job from its ledger and the network. */
  reconcileJob(job: PublishRequested, workspaceId: string, round: number): Promise<void>;
}
