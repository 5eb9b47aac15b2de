import { AtRestCipher } from '@social/at-rest';
import type { Connection, mongoose } from '@social/mongo';
import type { Endpoint, Endpoints } from '../domain/ports';
import { endpointModel, type EndpointDoc } from './endpoint.model';

/**
 * Endpoints, with their signing secrets encrypted at rest (WEBHOOKS_SECRET_KEY): a database dump or
 * backup does not let anyone sign deliveries our customers would trust. The domain sees secrets in
 * clear; only this repository knows how they are stored.
 */
export class EndpointRepository implements Endpoints {
  private readonly model: mongoose.Model<EndpointDoc>;

  constructor(
    conn: Connection,
    private readonly cipher: AtRestCipher,
  ) {
    this.model = endpointModel(conn);
  }

  /** Rows written before secrets were encrypted are read as they are, until `encryptStoredSecrets` ran. */
  private reveal(stored: string): string {
    return AtRestCipher.isEncrypted(stored) ? this.cipher.decrypt(stored) : stored;
  }

  private toEndpoint(d: EndpointDoc): Endpoint {
    return {
      id: d._id,
      workspaceId: d.workspaceId,
      url: d.url,
      eventTypes: d.eventTypes,
      description: d.description ?? null,
      secret: this.reveal(d.secret),
      previousSecret: d.previousSecret ? this.reveal(d.previousSecret) : null,
      previousSecretExpiresAt: d.previousSecretExpiresAt ?? null,
      createdAt: d.createdAt,
    };
  }

  async create(e: Endpoint): Promise<void> {
    const { id, secret, previousSecret, ...rest } = e;
    await this.model.create({
      _id: id,
      ...rest,
      secret: this.cipher.encrypt(secret),
      previousSecret: previousSecret === null ? null : this.cipher.encrypt(previousSecret),
    });
  }

  /** Oldest first; ids are time-ordered. */
  async list(workspaceId: string, page: { skip: number; take: number }) {
    const [docs, total] = await Promise.all([
      this.model.find({ workspaceId }).sort({ _id: 1 }).skip(page.skip).limit(page.take).lean<EndpointDoc[]>(),
      this.model.countDocuments({ workspaceId }),
    ]);
    return { items: docs.map((d) => this.toEndpoint(d)), total };
  }

  count(workspaceId: string): Promise<number> {
    return this.model.countDocuments({ workspaceId });
  }

  async get(workspaceId: string, id: string): Promise<Endpoint | null> {
    const d = await this.model.findOne({ _id: id, workspaceId }).lean<EndpointDoc>();
    return d ? this.toEndpoint(d) : null;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return (await this.model.deleteOne({ _id: id, workspaceId })).deletedCount === 1;
  }

  async replaceSecret(
    workspaceId: string,
    id: string,
    expectedSecret: string,
    next: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  ): Promise<Endpoint | null> {
    // Each encryption differs (fresh IV), so the compare-and-set is on the stored text read here,
    // after checking it holds the expected secret: a rotation in between changes that text.
    const stored = await this.model.findOne({ _id: id, workspaceId }, { secret: 1 }).lean<Pick<EndpointDoc, 'secret'>>();
    if (!stored || this.reveal(stored.secret) !== expectedSecret) return null;
    const d = await this.model
      .findOneAndUpdate(
        { _id: id, workspaceId, secret: stored.secret },
        {
          $set: {
            secret: this.cipher.encrypt(next.secret),
            previousSecret: next.previousSecret === null ? null : this.cipher.encrypt(next.previousSecret),
            previousSecretExpiresAt: next.previousSecretExpiresAt,
          },
        },
        { new: true },
      )
      .lean<EndpointDoc>();
    return d ? this.toEndpoint(d) : null;
  }

  async ofWorkspace(workspaceId: string): Promise<Endpoint[]> {
    return (await this.model.find({ workspaceId }).lean<EndpointDoc[]>()).map((d) => this.toEndpoint(d));
  }

  /**
   * Whether WEBHOOKS_SECRET_KEY reads what is stored, tried on the secret of the endpoint created
   * last: a changed key would otherwise show only as deliveries that cannot be signed.
   */
  async keyReadsStoredSecrets(): Promise<boolean> {
    const newest = await this.model.findOne({ secret: /^v1:/ }, { secret: 1 }).sort({ createdAt: -1 }).lean<Pick<EndpointDoc, 'secret'>>();
    if (!newest) return true;
    try {
      this.cipher.decrypt(newest.secret);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Encrypts secrets stored in clear by a version before encryption at rest (run at start-up, so an
   * upgrade keeps every endpoint's secret and leaves none readable in the database); each row is a
   * compare-and-set on the text read, so a rotation meanwhile is never overwritten. Returns how many.
   */
  async encryptStoredSecrets(): Promise<number> {
    let count = 0;
    // Encrypted text never starts like a secret (`whsec_…`), so only rows still in clear are read.
    const inClear = /^whsec_/;
    const rows = await this.model
      .find({ $or: [{ secret: inClear }, { previousSecret: inClear }] }, { secret: 1, previousSecret: 1 })
      .lean<Pick<EndpointDoc, '_id' | 'secret' | 'previousSecret'>[]>();
    for (const row of rows) {
      const plainPrevious = row.previousSecret && !AtRestCipher.isEncrypted(row.previousSecret);
      if (AtRestCipher.isEncrypted(row.secret) && !plainPrevious) continue;
      const set = {
        secret: AtRestCipher.isEncrypted(row.secret) ? row.secret : this.cipher.encrypt(row.secret),
        previousSecret: plainPrevious ? this.cipher.encrypt(row.previousSecret!) : (row.previousSecret ?? null),
      };
      const res = await this.model.updateOne(
        { _id: row._id, secret: row.secret, previousSecret: row.previousSecret ?? null },
        { $set: set },
      );
      count += res.modifiedCount;
    }
    return count;
  }
}
