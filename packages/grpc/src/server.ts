import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { ErrorCodes, grpcStatusOf, toAppError } from '@social/errors';
import { bearerToken, InvalidInternalTokenError, type TokenVerifier } from '@social/internal-auth';
import { createLogger, errorFields, runWithContext, setContext } from '@social/logger';
import { healthDefinition, HealthService } from './health';
import { AUTHORIZATION_KEY, errorMetadata, firstString, REQUEST_ID_KEY } from './metadata';
import { metricsInterceptor } from './metrics';
import { serviceNameOf } from './proto-loader';
import type { MethodMap, RequestOf, ResponseOf, ServerStream } from './types';

const log = createLogger('grpc');

export interface CallContext {
  /** From the verified internal token, never from the request body. */
  workspaceId: string;
  requestId: string;
  plan?: string;
  /** Who signed the call's token: a service name from the method's allow-list, or `gateway`. */
  caller: string;
  metadata: grpc.Metadata;
  /** When the caller stops waiting; undefined when it set no deadline. */
  deadline: Date | undefined;
}

export type UnaryHandler<Req, Res> = (request: Req, ctx: CallContext) => Promise<Res>;

/** A server-streaming handler: every item it yields is sent; returning ends the call with OK. */
export type ServerStreamHandler<Req, Item> = (request: Req, ctx: CallContext) => AsyncIterable<Item>;

export type ServiceHandlers<M extends MethodMap<M>> = {
  [K in keyof M]: ResponseOf<M[K]> extends ServerStream<infer Item>
    ? ServerStreamHandler<RequestOf<M[K]>, Item>
    : UnaryHandler<RequestOf<M[K]>, ResponseOf<M[K]>>;
};

/**
 * Who may call each method: token issuers (service names, or `gateway` for the admin command line).
 * Every method must be listed, so a new RPC is closed until someone decides who needs it.
 */
export type AllowedCallers<M> = { [K in keyof M]: readonly string[] };

type AnyHandler = (request: unknown, ctx: CallContext) => Promise<unknown> | AsyncIterable<unknown>;

export interface GrpcServerOptions {
  serviceName: string;
  /** Checks internal tokens addressed to this service (its audience). */
  verifier: TokenVerifier;
}

/**
 * A gRPC server for unary and server-streaming, internally authenticated RPCs that always serves grpc.health.v1.Health.
 * Health answers without a token so Kubernetes probes and grpc_health_probe can use it.
 */
export class GrpcServer {
  private readonly server = new grpc.Server({
    // Ping idle clients so connections of peers that vanished without closing are dropped.
    'grpc.keepalive_time_ms': 60_000,
    'grpc.keepalive_timeout_ms': 20_000,
    interceptors: [metricsInterceptor()],
  });
  private readonly health = new HealthService();
  private readonly serviceNames: string[] = [];
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: GrpcServerOptions) {
    this.server.addService(healthDefinition(), this.health.implementation);
    this.health.set('', 'NOT_SERVING');
  }

  addService<M extends MethodMap<M>>(definition: grpc.ServiceDefinition, handlers: ServiceHandlers<M>, callers: AllowedCallers<M>): this {
    if (this.started) throw new Error('GrpcServer: add services before start()');
    const name = serviceNameOf(definition);
    const given = handlers as Record<string, AnyHandler | undefined>;
    const allowed = callers as Record<string, readonly string[] | undefined>;
    const implementation: grpc.UntypedServiceImplementation = {};
    // Fail at start-up, not with UNIMPLEMENTED at the first call.
    for (const [method, attrs] of Object.entries(definition)) {
      const handler = given[method];
      if (attrs.requestStream) throw new Error(`${name}/${method}: client-streaming methods are not supported`);
      if (!handler) throw new Error(`${name}/${method} has no handler`);
      const callersOf = allowed[method];
      if (!callersOf || callersOf.length === 0) throw new Error(`${name}/${method} has no allowed callers`);
      implementation[method] = attrs.responseStream
        ? this.serverStream(attrs.path, callersOf, handler as ServerStreamHandler<unknown, unknown>)
        : this.unary(attrs.path, callersOf, handler as UnaryHandler<unknown, unknown>);
    }
    const unknown = Object.keys(given).filter((method) => !Object.hasOwn(definition, method));
    if (unknown.length > 0) throw new Error(`${name} has no method(s) ${unknown.join(', ')}`);
    this.server.addService(definition, implementation);
    this.serviceNames.push(name);
    this.health.set(name, 'NOT_SERVING');
    return this;
  }

  /** Health of the whole server ("") and of each added service; stays NOT_SERVING once shutdown began. */
  setServing(serving: boolean): void {
    if (serving && this.stopping) return;
    for (const name of ['', ...this.serviceNames]) this.health.set(name, serving ? 'SERVING' : 'NOT_SERVING');
  }

  /** Binds (port 0 picks a free port), marks everything SERVING and resolves with the bound port. */
  async start(host: string, port: number): Promise<number> {
    const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
    const bound = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, actual) => (err ? reject(err) : resolve(actual)));
    });
    this.started = true;
    this.setServing(true);
    log.info('gRPC server listening', { server: this.options.serviceName, port: bound, services: this.serviceNames });
    return bound;
  }

  /**
   * Reports NOT_SERVING, stops taking new calls and lets in-flight ones finish; after graceMs the
   * remaining calls are cancelled. Safe to call more than once.
   */
  shutdown(graceMs: number): Promise<void> {
    this.stopping ??= new Promise<void>((resolve) => {
      this.setServing(false);
      // Watchers have now seen NOT_SERVING; their open streams would otherwise hold the shutdown.
      this.health.endWatches();
      const timer = setTimeout(() => {
        log.warn('gRPC grace period over, cancelling remaining calls', { graceMs });
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return this.stopping;
  }

  private unary(
    method: string,
    callers: readonly string[],
    handler: UnaryHandler<unknown, unknown>,
  ): grpc.handleUnaryCall<unknown, unknown> {
    return (call, callback) => {
      const startedAt = performance.now();
      const requestId = firstString(call.metadata, REQUEST_ID_KEY) ?? randomUUID();
      let caller: string | undefined;
      // One line per call, like the HTTP access log: with the request id it ties a request's hops together.
      const done = (code: grpc.status) =>
        log.info('rpc', {
          method,
          code: grpc.status[code],
          caller,
          durationMs: Math.round(performance.now() - startedAt),
          // The caller may have given up (deadline, cancel) and never sees this outcome.
          ...(call.cancelled ? { cancelled: true } : {}),
        });

      void runWithContext({ requestId }, async () => {
        let response: unknown;
        try {
          const claims = await this.authenticate(call.metadata, callers);
          caller = claims.issuer;
          setContext({ workspaceId: claims.workspaceId });
          const deadline = call.getDeadline();
          response = await handler(call.request, {
            workspaceId: claims.workspaceId,
            requestId,
            ...(claims.plan ? { plan: claims.plan } : {}),
            caller: claims.issuer,
            metadata: call.metadata,
            deadline: deadline === Infinity ? undefined : new Date(deadline),
          });
        } catch (err) {
          const appError = toAppError(err);
          const unexpected = appError !== err && appError.code === ErrorCodes.INTERNAL;
          if (unexpected || appError.isCatastrophic) {
            log.error(`unhandled error in ${method}`, errorFields(err));
          }
          const code = grpcStatusOf(appError);
          callback({ code, details: appError.message, metadata: errorMetadata(appError, new grpc.Metadata()) });
          done(code);
          return;
        }
        callback(null, response);
        done(grpc.status.OK);
      });
    };
  }

  private serverStream(
    method: string,
    callers: readonly string[],
    handler: ServerStreamHandler<unknown, unknown>,
  ): grpc.handleServerStreamingCall<unknown, unknown> {
    return (call) => {
      const startedAt = performance.now();
      const requestId = firstString(call.metadata, REQUEST_ID_KEY) ?? randomUUID();
      let caller: string | undefined;
      void runWithContext({ requestId }, async () => {
        let items = 0;
        try {
          const claims = await this.authenticate(call.metadata, callers);
          caller = claims.issuer;
          setContext({ workspaceId: claims.workspaceId });
          const deadline = call.getDeadline();
          const iterable = handler(call.request, {
            workspaceId: claims.workspaceId,
            requestId,
            ...(claims.plan ? { plan: claims.plan } : {}),
            caller: claims.issuer,
            metadata: call.metadata,
            deadline: deadline === Infinity ? undefined : new Date(deadline),
          });
          for await (const item of iterable) {
            // The caller went away: stop producing (the loop's return() closes the source).
            if (call.cancelled) break;
            items++;
            // Respect back-pressure so a slow reader never makes us buffer a whole file.
            if (!call.write(item))
              await new Promise<void>((resolve) => {
                const settle = () => {
                  call.off('drain', settle);
                  call.off('close', settle);
                  resolve();
                };
                call.once('drain', settle);
                call.once('close', settle);
              });
          }
          if (!call.cancelled) call.end();
          log.info('rpc', { method, code: 'OK', caller, items, durationMs: Math.round(performance.now() - startedAt) });
        } catch (err) {
          const appError = toAppError(err);
          const unexpected = appError !== err && appError.code === ErrorCodes.INTERNAL;
          if (unexpected || appError.isCatastrophic) log.error(`unhandled error in ${method}`, errorFields(err));
          const code = grpcStatusOf(appError);
          if (!call.cancelled) {
            call.emit('error', { code, details: appError.message, metadata: errorMetadata(appError, new grpc.Metadata()) });
          }
          log.info('rpc', { method, code: grpc.status[code], caller, items, durationMs: Math.round(performance.now() - startedAt) });
        }
      });
    };
  }

  /** A token signed by one of the method's allowed callers, with this service as audience. */
  private authenticate(metadata: grpc.Metadata, callers: readonly string[]) {
    const token = bearerToken(firstString(metadata, AUTHORIZATION_KEY));
    if (!token) throw new InvalidInternalTokenError('missing bearer token');
    return this.options.verifier.verify(token, callers);
  }
}
