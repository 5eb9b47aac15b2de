import { Router } from 'express';
import type { MediaServiceMethods } from '@social/contracts';
import { Broker } from '@social/events';
import { GrpcServer } from '@social/grpc';
import { startServiceHttp, type ServiceHttp } from '@social/http';
import { TokenSigner, verifierFor } from '@social/internal-auth';
import { createLogger } from '@social/logger';
import { closeMongo, connectMongo, isMongoReady, syncIndexes, type Connection } from '@social/mongo';
import { PostsUsageClient } from './clients/posts-usage.client';
import { mediaDbName, type MediaConfig } from './config';
import { buildContext, type ImportOverrides } from './context';
import { LocalImageProvider } from './clients/local-image-provider';
import { OpenAiImageProvider } from './clients/openai-image-provider';
import { GenerateImage } from './domain/generation/generate-image.use-case';
import type { ImageProvider } from './domain/generation/ports';
import { MediaUseCases } from './domain/media.use-cases';
import type { MediaUsage } from './domain/ports';
import { StorageUseCases } from './domain/storage.use-cases';
import { batchGetMedia } from './grpc/batch-get-media';
import { MEDIA_RPC_CALLERS, mediaDefinition } from './grpc/media.grpc';
import { readMediaFile } from './grpc/read-media-file';
import { assistantRoutes } from './http/assistant.routes';
import { mediaRoutes } from './http/media.routes';
import { storageRoutes } from './http/storage.routes';
import { BrokerProcessingQueue, mediaTopology } from './jobs/media-jobs';

const log = createLogger('media');

export interface MediaServiceOverrides extends ImportOverrides {
  usage?: MediaUsage;
  provider?: ImageProvider;
}

export function imageProviderFor(cfg: MediaConfig): ImageProvider {
  if (cfg.imageProvider === 'openai') {
    return new OpenAiImageProvider({
      baseUrl: cfg.imageApiUrl,
      apiKey: cfg.imageApiKey,
      model: cfg.imageApiModel,
      timeoutMs: cfg.imageApiTimeoutMs,
    });
  }
  return new LocalImageProvider();
}

/** The media library API, the storage host and the gRPC MediaService. Processing runs in MediaWorker. */
export class MediaService {
  private constructor(
    private readonly cfg: MediaConfig,
    private readonly mongo: Connection,
    private readonly broker: Broker,
    private readonly http: ServiceHttp,
    private readonly grpc: GrpcServer,
    readonly grpcPort: number,
    private readonly posts: PostsUsageClient | undefined,
  ) {}

  get port(): number {
    return this.http.port;
  }

  static async create(cfg: MediaConfig, overrides: MediaServiceOverrides = {}): Promise<MediaService> {
    // Keys first: a bad one fails start-up at once, naming its variable.
    const verifier = verifierFor(cfg.internalJwtPublicKeys, 'media');
    const signer = new TokenSigner('media', cfg.jwtPrivateKey);
    const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: mediaDbName(cfg) });
    const ctx = buildContext(cfg, mongo, overrides);
    await syncIndexes(mongo);
    const broker = await Broker.connect({ url: cfg.amqpUrl, connectionName: 'media', topology: mediaTopology });
    const posts = overrides.usage ? undefined : new PostsUsageClient(cfg.postsGrpcUrl, signer);
    const library = new MediaUseCases({
      ...ctx,
      queue: new BrokerProcessingQueue(broker),
      usage: overrides.usage ?? posts!,
      uploadUrlTtlSeconds: cfg.uploadUrlTtlSeconds,
    });
    const generateImage = new GenerateImage({ ...ctx, provider: overrides.provider ?? imageProviderFor(cfg) });
    const storage = new StorageUseCases({ ...ctx, maxUploadBytes: cfg.maxUploadBytes });
    const api = Router();
    api.use(mediaRoutes(library, cfg.maxUploadBytes));
    api.use(assistantRoutes(generateImage));

    const grpc = new GrpcServer({ serviceName: 'media', verifier });
    grpc.addService<MediaServiceMethods>(
      mediaDefinition,
      {
        BatchGetMedia: batchGetMedia(ctx.repo, ctx.urls),
        ReadMediaFile: readMediaFile(ctx.repo, ctx.store),
      },
      MEDIA_RPC_CALLERS,
    );
    const grpcPort = await grpc.start(cfg.host, cfg.grpcPort);

    const http = await startServiceHttp({
      // The largest request body this API takes (the gateway checks the same per route).
      jsonLimit: '16kb',
      host: cfg.host,
      port: cfg.port,
      api: { router: api, verifier },
      publicRoutes: storageRoutes(storage),
      readiness: [
        { name: 'mongo', check: () => isMongoReady(mongo) },
        { name: 'broker', check: () => broker.isReady() },
      ],
    });
    log.info('media listening', { port: http.port, grpcPort });
    return new MediaService(cfg, mongo, broker, http, grpc, grpcPort, posts);
  }

  async destroy(): Promise<void> {
    await Promise.all([this.http.close(this.cfg.shutdownGraceMs), this.grpc.shutdown(this.cfg.shutdownGraceMs)]);
    this.posts?.close();
    await this.broker.close(this.cfg.shutdownGraceMs);
    await closeMongo(this.mongo);
  }
}
