import { randomUUID } from 'node:crypto';
import type { Connection } from '@social/mongo';
import type { PublishAttemptStore, PublishReplay } from '../domain/ports';
import { publishAttemptModel } from './publish-attempt.model';

export class PublishAttemptRepository implements PublishAttemptStore {
  private readonly model;

  constructor(conn: Connection) {
    this.model = publishAttemptModel(conn);
  }

  async recordReplay(attempt: PublishReplay): Promise<void> {
    await this.model.create({ ...attempt, _id: randomUUID(), at: new Date() });
  }

  /** Replays per network post id; both filters optional. */
  async replaysByPost(filter: { net?: string; accountId?: string }): Promise<Map<string, number>> {
    const q: Record<string, string> = {};
    if (filter.net) q['net'] = filter.net;
    if (filter.accountId) q['accountId'] = filter.accountId;
    const docs = await this.model.find(q, { networkPostId: 1 }).lean();
    const counts = new Map<string, number>();
    for (const d of docs) counts.set(d.networkPostId, (counts.get(d.networkPostId) ?? 0) + 1);
    return counts;
  }
}
