import {
  mediaServiceDefinition,
  profilesServiceDefinition,
  type BatchGetMediaResponse,
  type MediaInfo,
  type ProfileMessage,
} from '@social/contracts';
import { GrpcServer, type CallContext } from '@social/grpc';
import { AppError } from '@social/errors';
import { everyMethod, testVerifier } from '@social/testkit';

// Test doubles of the neighbour services: real gRPC servers on free ports implementing the
// media.v1 and competitors.v1 contracts over in-memory data, so posts' real clients, internal
// auth, deadlines and error mapping are exercised.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface FakeMediaInput {
  id: string;
  mime?: string;
  status?: string;
  sizeBytes?: number;
  durationSec?: number;
}

export class FakeNeighbour<T extends { id: string }> {
  readonly byWorkspace = new Map<string, Map<string, T>>();
  delayMs = 0;
  calls = 0;
  server: GrpcServer | undefined;
  address = '';

  put(workspaceId: string, item: T): T {
    if (!this.byWorkspace.has(workspaceId)) this.byWorkspace.set(workspaceId, new Map());
    this.byWorkspace.get(workspaceId)!.set(item.id, item);
    return item;
  }

  async find(ids: string[], ctx: CallContext): Promise<T[]> {
    this.calls += 1;
    if (this.delayMs) await sleep(this.delayMs);
    const ws = this.byWorkspace.get(ctx.workspaceId);
    return ids.map((id) => ws?.get(id)).filter((x): x is T => x !== undefined);
  }
}

export class FakeMedia extends FakeNeighbour<MediaInfo> {
  add(workspaceId: string, m: FakeMediaInput): MediaInfo {
    const mime = m.mime ?? 'image/jpeg';
    const video = mime.startsWith('video/');
    const status = m.status ?? 'SUCCESS';
    return this.put(workspaceId, {
      id: m.id,
      name: m.id,
      status,
      mime_type: status === 'PROCESSING' ? '' : mime,
      kind: status === 'PROCESSING' ? '' : video ? 'VIDEO' : mime === 'image/gif' ? 'GIF' : 'IMAGE',
      width: 1080,
      height: 1080,
      duration_seconds: video ? (m.durationSec ?? 30) : 0,
      fps: video ? 30 : 0,
      file_size_bytes: m.sizeBytes ?? 100_000,
      url: status === 'SUCCESS' ? `http://storage.test/${m.id}?sig=abc` : '',
      preview_url: '',
      destination_type: 'POST_MEDIA',
      error_reason: '',
    });
  }

  async start(port = 0): Promise<void> {
    // Only the unary method: the file stream is the publisher's business.
    const { ReadMediaFile: _stream, ...unary } = mediaServiceDefinition();
    this.server = new GrpcServer({ serviceName: 'media', verifier: testVerifier('media') });
    this.server.addService<{ BatchGetMedia: [{ ids: string[] }, BatchGetMediaResponse] }>(
      unary,
      {
        BatchGetMedia: async (req: { ids: string[] }, ctx: CallContext) => ({ items: await this.find(req.ids, ctx) }),
      },
      { BatchGetMedia: ['posts'] },
    );
    this.address = `127.0.0.1:${await this.server.start('127.0.0.1', port)}`;
  }

  async stop(): Promise<void> {
    await this.server?.shutdown(50);
  }
}

export class FakeProfiles extends FakeNeighbour<ProfileMessage> {
  add(workspaceId: string, p: { id: string; net: string; publishReady?: boolean; name?: string }): ProfileMessage {
    return this.put(workspaceId, {
      id: p.id,
      name: p.name ?? `Profile ${p.id}`,
      username: `user_${p.id}`,
      picture: `http://pictures.test/${p.id}.jpg`,
      net: { code: p.net, name: `${p.net} name` },
      status_level: p.publishReady === false ? 'ERROR' : 'OK',
      network_account_id: `acct-${p.id}`,
      publish_ready: p.publishReady ?? true,
    });
  }

  async start(port = 0): Promise<void> {
    this.server = new GrpcServer({ serviceName: 'competitors', verifier: testVerifier('competitors') });
    const definition = profilesServiceDefinition();
    const notHere = async () => {
      throw new AppError('UNIMPLEMENTED', 501, 'not in this test double');
    };
    // Only GetProfiles matters to posts; the contract's other methods (it grows) answer an error.
    const handlers: Record<string, unknown> = Object.fromEntries(Object.keys(definition).map((m) => [m, notHere]));
    handlers['GetProfiles'] = async (req: { ids: string[] }, ctx: CallContext) => ({ items: await this.find(req.ids, ctx) });
    this.server.addService(definition, handlers as never, everyMethod(definition, ['posts']));
    this.address = `127.0.0.1:${await this.server.start('127.0.0.1', port)}`;
  }

  async stop(): Promise<void> {
    await this.server?.shutdown(50);
  }
}
