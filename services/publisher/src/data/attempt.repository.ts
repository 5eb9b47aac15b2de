import { isDuplicateKeyError, type Connection } from '@social/mongo';
import { attemptModel, type AttemptDoc, type AttemptState } from './attempt.model';

export interface Attempt {
  key: string;
  state: AttemptState;
  networkPostId: string | null;
  publishedAt: string | null;
  error: { code: string; message: string } | null;
  attempts: number;
}

export interface AttemptStart {
  key: string;
  workspaceId: string | null;
  postId: string;
  profileId: string;
  revision: number;
  net: string;
  attempts: number;
}

const toAttempt = (d: AttemptDoc): Attempt => ({
  key: d._id,
  state: d.state,
  networkPostId: d.networkPostId,
  publishedAt: d.publishedAt ? d.publishedAt.toISOString() : null,
  error: d.error,
  attempts: d.attempts,
});

/**
 * The ledger. No transactions on FerretDB: the unique `_id` decides who starts an attempt, and every
 * state change is a conditional update on the state it expects.
 */
export class AttemptRepository {
  private readonly model;

  constructor(conn: Connection) {
    this.model = attemptModel(conn);
  }

  async get(key: string): Promise<Attempt | null> {
    const d = await this.model.findById(key).lean<AttemptDoc>();
    return d ? toAttempt(d) : null;
  }

  /** Inserts the attempt in `state`; when the key exists, returns the existing one instead. */
  async insert(start: AttemptStart, state: AttemptState, error: Attempt['error'] = null): Promise<{ created: boolean; attempt: Attempt }> {
    const now = new Date();
    const doc: AttemptDoc = {
      _id: start.key,
      workspaceId: start.workspaceId,
      postId: start.postId,
      profileId: start.profileId,
      revision: start.revision,
      net: start.net,
      state,
      networkPostId: null,
      publishedAt: null,
      error,
      attempts: start.attempts,
      startedAt: now,
      updatedAt: now,
    };
    try {
      await this.model.create(doc);
      return { created: true, attempt: toAttempt(doc) };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const existing = await this.get(start.key);
      if (!existing) throw err;
      return { created: false, attempt: existing };
    }
  }

  async touch(key: string, attempts: number): Promise<void> {
    await this.model.updateOne({ _id: key, state: 'STARTED' }, { $set: { attempts, updatedAt: new Date() } });
  }

  /**
   * What the network says wins: a publish confirmed by the network turns a STARTED or even a FAILED
   * attempt (settled by a watchdog reconcile while this call was in flight) into PUBLISHED.
   */
  async markPublished(key: string, networkPostId: string, publishedAt: string, attempts: number): Promise<Attempt> {
    const set = { state: 'PUBLISHED', networkPostId, publishedAt: new Date(publishedAt), error: null, attempts, updatedAt: new Date() };
    for (const from of ['STARTED', 'FAILED'] as const) {
      const d = await this.model.findOneAndUpdate({ _id: key, state: from }, { $set: set }, { new: true }).lean<AttemptDoc>();
      if (d) return toAttempt(d);
    }
    return this.mustGet(key);
  }

  /** STARTED → FAILED/CANCELLED; returns the attempt as it is afterwards (maybe finished by another worker). */
  async finish(key: string, state: 'FAILED' | 'CANCELLED', error: Attempt['error'], attempts: number): Promise<Attempt> {
    const d = await this.model
      .findOneAndUpdate({ _id: key, state: 'STARTED' }, { $set: { state, error, attempts, updatedAt: new Date() } }, { new: true })
      .lean<AttemptDoc>();
    return d ? toAttempt(d) : this.mustGet(key);
  }

  private async mustGet(key: string): Promise<Attempt> {
    const now = await this.get(key);
    if (!now) throw new Error(`attempt ${key} vanished`);
    return now;
  }
}
