import { mediaServiceDefinition, postsServiceDefinition, profilesServiceDefinition } from '@social/contracts';
import { GrpcServer, type CallContext } from '@social/grpc';
import { AppError, ErrorCodes } from '@social/errors';
import { everyMethod, testVerifier } from '@social/testkit';

// Test doubles of posts, media and competitors: real gRPC servers on free ports over in-memory
// data, so the publisher's real clients, internal auth and error mapping are exercised.

export interface FakePost {
  postId: string;
  revision: number;
  type: string;
  stage: string;
  caption: string;
  firstComment: string;
  mediaLibIds: string[];
  links: { link: string; link_title: string; link_description: string; media_lib_id: string }[];
  /** Per network, as JSON; a broken string makes a poison job. */
  settingsJson: string;
  profiles: Map<string, { net: string; status: string }>;
}

const notFound = (what: string) => new AppError(ErrorCodes.NOT_FOUND, 404, `${what} not found`);

export class FakeNeighbours {
  readonly posts = new Map<string, FakePost>();
  readonly media = new Map<string, { id: string; status: string; mime_type: string; url: string; width: number; height: number }>();
  readonly credentials = new Map<string, { net: string; accountId: string; token: string }>();
  private readonly servers: GrpcServer[] = [];
  addresses = { posts: '', media: '', competitors: '' };

  addPost(p: Partial<Omit<FakePost, 'profiles'>> & { postId: string; profiles: Record<string, string> }): FakePost {
    const post: FakePost = {
      revision: 1,
      type: 'STATUS',
      stage: 'SCHEDULED',
      caption: `caption of ${p.postId}`,
      firstComment: '',
      mediaLibIds: [],
      links: [],
      settingsJson: '{}',
      ...p,
      profiles: new Map(Object.entries(p.profiles).map(([id, net]) => [id, { net, status: 'PENDING' }])),
    };
    this.posts.set(post.postId, post);
    return post;
  }

  async start(): Promise<void> {
    const opts = (name: string) => ({ serviceName: name, verifier: testVerifier(name) });
    const posts = new GrpcServer(opts('posts')).addService(
      postsServiceDefinition(),
      {
        GetPostForPublishing: async (r: unknown, _ctx: CallContext) => {
          const req = r as { post_id: string; profile_id: string };
          const p = this.posts.get(req.post_id);
          const profile = p?.profiles.get(req.profile_id);
          if (!p || !profile) throw notFound(`post ${req.post_id}`);
          return {
            post_id: p.postId,
            profile_id: req.profile_id,
            revision: p.revision,
            type: p.type,
            stage: p.stage,
            net: profile.net,
            caption: { plain_text: p.caption, first_comment: p.firstComment },
            media_lib_ids: p.mediaLibIds,
            links: p.links,
            settings_json: p.settingsJson,
            publish_status: profile.status,
          };
        },
        CountMediaUsage: async () => ({ total: 0, scheduled: 0 }),
        FindPublishedByLabels: async () => ({ items: [] }),
      },
      everyMethod(postsServiceDefinition(), ['publisher']),
    );
    const { ReadMediaFile: _stream, ...unary } = mediaServiceDefinition();
    const media = new GrpcServer(opts('media')).addService(
      unary,
      {
        BatchGetMedia: async (req: unknown) => ({
          items: (req as { ids: string[] }).ids.map((id) => this.media.get(id)).filter((m) => m !== undefined),
        }),
      },
      everyMethod(unary, ['publisher']),
    );
    const competitors = new GrpcServer(opts('competitors')).addService(
      profilesServiceDefinition(),
      {
        GetPublishCredentials: async (r: unknown) => {
          const req = r as { profile_id: string };
          const c = this.credentials.get(req.profile_id);
          if (!c) throw notFound(`profile ${req.profile_id}`);
          return { profile_id: req.profile_id, net: c.net, network_account_id: c.accountId, access_token: c.token };
        },
        GetProfiles: async () => ({ items: [] }),
        GetCompetitor: async () => {
          throw notFound('competitor');
        },
        ConnectProfile: async () => {
          throw notFound('profile');
        },
        ConnectSandboxProfiles: async () => ({ items: [] }),
      },
      everyMethod(profilesServiceDefinition(), ['publisher']),
    );
    this.servers.push(posts, media, competitors);
    this.addresses = {
      posts: `127.0.0.1:${await posts.start('127.0.0.1', 0)}`,
      media: `127.0.0.1:${await media.start('127.0.0.1', 0)}`,
      competitors: `127.0.0.1:${await competitors.start('127.0.0.1', 0)}`,
    };
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.shutdown(50)));
  }
}
