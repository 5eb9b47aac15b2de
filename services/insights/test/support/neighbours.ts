import { AppError, ErrorCodes } from '@social/errors';
import { GrpcServer, type CallContext } from '@social/grpc';
import { everyMethod, testVerifier } from '@social/testkit';
import {
  postsServiceDefinition,
  profilesServiceDefinition,
  type PostsServiceMethods,
  type ProfilesServiceMethods,
} from '@social/contracts';

// Test doubles of the neighbours being built in parallel: real gRPC servers on free ports that
// implement the competitors.v1 and posts.v1 contracts over in-memory data, so insights' real
// clients, internal auth, deadlines and error mapping are exercised.

const unimplemented = async (): Promise<never> => {
  throw new AppError('UNIMPLEMENTED', 501, 'not part of this test double');
};

export interface FakeProfile {
  id: string;
  net: string;
  accountId: string;
  /** Sandbox access token, for GetPublishCredentials. */
  token?: string;
}

/** competitors.v1.ProfilesService: own profiles and competitors per workspace. */
export class FakeCompetitors {
  readonly profiles = new Map<string, Map<string, FakeProfile>>();
  readonly competitors = new Map<string, Map<string, FakeProfile>>();
  down = false;
  private server: GrpcServer | undefined;
  address = '';

  addProfile(ws: string, p: FakeProfile): FakeProfile {
    if (!this.profiles.has(ws)) this.profiles.set(ws, new Map());
    this.profiles.get(ws)!.set(p.id, p);
    return p;
  }

  addCompetitor(ws: string, c: FakeProfile): FakeProfile {
    if (!this.competitors.has(ws)) this.competitors.set(ws, new Map());
    this.competitors.get(ws)!.set(c.id, c);
    return c;
  }

  async start(): Promise<void> {
    const net = (code: string) => ({ code, name: code });
    const check = () => {
      if (this.down) throw new AppError(ErrorCodes.SERVICE_UNAVAILABLE, 503, 'down for the test');
    };
    this.server = new GrpcServer({ serviceName: 'competitors', verifier: testVerifier('competitors') });
    this.server.addService<ProfilesServiceMethods>(
      profilesServiceDefinition(),
      {
        GetProfiles: async (req: { ids: string[] }, ctx: CallContext) => {
          check();
          const ws = this.profiles.get(ctx.workspaceId);
          const items = req.ids.map((id) => ws?.get(id)).filter((p): p is FakeProfile => p !== undefined);
          return {
            items: items.map((p) => ({
              id: p.id,
              name: p.id,
              username: p.id,
              picture: '',
              net: net(p.net),
              status_level: 'OK',
              network_account_id: p.accountId,
              publish_ready: true,
            })),
          };
        },
        GetCompetitor: async (req: { competitor_id: string }, ctx: CallContext) => {
          check();
          const c = this.competitors.get(ctx.workspaceId)?.get(req.competitor_id);
          if (!c) throw new AppError(ErrorCodes.NOT_FOUND, 404, 'Competitor was not found in this workspace.');
          return {
            id: c.id,
            profile_id: `pub-${c.accountId}`,
            name: c.id,
            username: c.id,
            picture: '',
            net: net(c.net),
            status_level: 'ACTIVE',
            network_account_id: c.accountId,
          };
        },
        GetPublishCredentials: async (req: { profile_id: string }, ctx: CallContext) => {
          check();
          const p = this.profiles.get(ctx.workspaceId)?.get(req.profile_id);
          if (!p) throw new AppError(ErrorCodes.NOT_FOUND, 404, 'Profile was not found in this workspace.');
          return { profile_id: p.id, net: p.net, network_account_id: p.accountId, access_token: p.token ?? '' };
        },
        ConnectProfile: unimplemented,
        ConnectSandboxProfiles: unimplemented,
      },
      everyMethod(profilesServiceDefinition(), ['insights']),
    );
    this.address = `127.0.0.1:${await this.server.start('127.0.0.1', 0)}`;
  }

  async stop(): Promise<void> {
    await this.server?.shutdown(500);
  }
}

export interface FakePublished {
  profileId: string;
  networkPostId: string;
  labelIds: string[];
}

/** posts.v1.PostsService: only FindPublishedByLabels, over posts "published through us". */
export class FakePosts {
  readonly published = new Map<string, FakePublished[]>();
  calls = 0;
  private server: GrpcServer | undefined;
  address = '';

  add(ws: string, p: FakePublished): void {
    this.published.set(ws, [...(this.published.get(ws) ?? []), p]);
  }

  async start(): Promise<void> {
    this.server = new GrpcServer({ serviceName: 'posts', verifier: testVerifier('posts') });
    this.server.addService<PostsServiceMethods>(
      postsServiceDefinition(),
      {
        FindPublishedByLabels: async (req: { label_ids: string[]; profile_id: string }, ctx: CallContext) => {
          this.calls += 1;
          const items = (this.published.get(ctx.workspaceId) ?? []).filter(
            (p) => (!req.profile_id || p.profileId === req.profile_id) && p.labelIds.some((l) => req.label_ids.includes(l)),
          );
          return {
            items: items.map((p, i) => ({
              post_id: `post-${i}`,
              profile_id: p.profileId,
              network_post_id: p.networkPostId,
              label_ids: p.labelIds,
            })),
          };
        },
        GetPostForPublishing: unimplemented,
        CountMediaUsage: unimplemented,
      },
      everyMethod(postsServiceDefinition(), ['insights']),
    );
    this.address = `127.0.0.1:${await this.server.start('127.0.0.1', 0)}`;
  }

  async stop(): Promise<void> {
    await this.server?.shutdown(500);
  }
}
