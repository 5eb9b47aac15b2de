import type { Connection, mongoose } from '@social/mongo';
import type { Endpoint, Endpoints } from '../domain/ports';
import { endpointModel, type EndpointDoc } from './endpoint.model';

const toEndpoint = (d: EndpointDoc): Endpoint => ({
  id: d._id,
  workspaceId: d.workspaceId,
  url: d.url,
  eventTypes: d.eventTypes,
  description: d.description ?? null,
  secret: d.secret,
  previousSecret: d.previousSecret ?? null,
  previousSecretExpiresAt: d.previousSecretExpiresAt ?? null,
  createdAt: d.createdAt,
});

export class EndpointRepository implements Endpoints {
  private readonly model: mongoose.Model<EndpointDoc>;

  constructor(conn: Connection) {
    this.model = endpointModel(conn);
  }

  async create(e: Endpoint): Promise<void> {
    const { id, ...rest } = e;
    await this.model.create({ _id: id, ...rest });
  }

  /** Oldest first; ids are time-ordered. */
  async list(workspaceId: string, page: { skip: number; take: number }) {
    const [docs, total] = await Promise.all([
      this.model.find({ workspaceId }).sort({ _id: 1 }).skip(page.skip).limit(page.take).lean<EndpointDoc[]>(),
      this.model.countDocuments({ workspaceId }),
    ]);
    return { items: docs.map(toEndpoint), total };
  }

  count(workspaceId: string): Promise<number> {
    return this.model.countDocuments({ workspaceId });
  }

  async get(workspaceId: string, id: string): Promise<Endpoint | null> {
    const d = await this.model.findOne({ _id: id, workspaceId }).lean<EndpointDoc>();
    return d ? toEndpoint(d) : null;
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
    const d = await this.model
      .findOneAndUpdate({ _id: id, workspaceId, secret: expectedSecret }, { $set: next }, { new: true })
      .lean<EndpointDoc>();
    return d ? toEndpoint(d) : null;
  }

  async ofWorkspace(workspaceId: string): Promise<Endpoint[]> {
    return (await this.model.find({ workspaceId }).lean<EndpointDoc[]>()).map(toEndpoint);
  }
}
