import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { TokenSigner } from '@social/internal-auth';
import { getContext } from '@social/logger';
import { AUTHORIZATION_KEY, errorFromStatus, REQUEST_ID_KEY } from './metadata';
import { serviceNameOf } from './proto-loader';
import type { MethodMap, RequestOf, ResponseOf, ServerStream, StreamItemOf } from './types';

export interface GrpcClientOptions {
  /** The target service's name: the audience of the tokens this client signs. */
  audience: string;
  /** The calling service's own key: the callee checks its name against the method's allow-list. */
  signer: TokenSigner;
  defaultDeadlineMs?: number;
}

export interface CallOptions {
  workspaceId: string;
  /** Defaults to the request id of the current log context, so one id follows a request everywhere. */
  requestId?: string;
  deadlineMs?: number;
}

export interface GrpcClient<M extends MethodMap<M>> {
  /** Resolves with the response, or rejects with the AppError the server threw (or one for the transport). */
  call<K extends keyof M & string>(method: K, request: RequestOf<M[K]>, options: CallOptions): Promise<ResponseOf<M[K]>>;
  /**
   * A server-streaming call as an async iterable; it rejects with the AppError the server sent.
   * Breaking out of the loop cancels the call. The default deadline is 5 minutes.
   */
  stream<K extends StreamingMethods<M>>(method: K, request: RequestOf<M[K]>, options: CallOptions): AsyncIterable<StreamItemOf<M[K]>>;
  close(): void;
}

type StreamingMethods<M> = { [K in keyof M & string]: ResponseOf<M[K]> extends ServerStream<unknown> ? K : never }[keyof M & string];

const DEFAULT_STREAM_DEADLINE_MS = 300_000;

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // Keep idle connections alive through NAT and conntrack timeouts and notice dead peers within
  // ~40 s. Our servers are grpc-js, which accepts pings at this rate (grpc-go would not by default).
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
};

/**
 * A typed client for the unary methods of one service:
 * `createGrpcClient<PostsMethods>(postsDefinition, 'posts:50051', {...}).call('GetPost', req, { workspaceId })`.
 */
export function createGrpcClient<M extends MethodMap<M> = Record<string, [unknown, unknown]>>(
  definitionOrCtor: grpc.ServiceDefinition | grpc.ServiceClientConstructor,
  address: string,
  options: GrpcClientOptions,
): GrpcClient<M> {
  const definition = typeof definitionOrCtor === 'function' ? definitionOrCtor.service : definitionOrCtor;
  const serviceName = serviceNameOf(definition);
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const defaultDeadlineMs = options.defaultDeadlineMs ?? 2000;

  const metadataFor = async (callOptions: CallOptions, deadlineMs: number) => {
    const requestId = callOptions.requestId ?? getContext().requestId ?? randomUUID();
    const token = await options.signer.sign(
      { workspaceId: callOptions.workspaceId, requestId },
      // Short-lived, yet valid for the whole call even with a long deadline.
      { audience: options.audience, ttlSeconds: Math.max(30, Math.ceil(deadlineMs / 1000) + 5) },
    );
    const metadata = new grpc.Metadata();
    metadata.set(AUTHORIZATION_KEY, `Bearer ${token}`);
    metadata.set(REQUEST_ID_KEY, requestId);
    return metadata;
  };

  return {
    stream(method, request, callOptions) {
      const attrs = Object.hasOwn(definition, method) ? definition[method] : undefined;
      const deadlineMs = callOptions.deadlineMs ?? DEFAULT_STREAM_DEADLINE_MS;
      return {
        async *[Symbol.asyncIterator]() {
          if (!attrs || attrs.requestStream || !attrs.responseStream) {
            throw new Error(`${serviceName} has no server-streaming method ${method}`);
          }
          const call = client.makeServerStreamRequest(
            attrs.path,
            attrs.requestSerialize,
            attrs.responseDeserialize,
            request,
            await metadataFor(callOptions, deadlineMs),
            { deadline: Date.now() + deadlineMs },
          );
          let finished = false;
          try {
            for await (const item of call) yield item as StreamItemOf<M[typeof method]>;
            finished = true;
          } catch (err) {
            finished = true;
            throw errorFromStatus(err as grpc.ServiceError, `${options.audience} ${method}`);
          } finally {
            if (!finished) call.cancel();
          }
        },
      };
    },
    call(method, request, callOptions) {
      const attrs = Object.hasOwn(definition, method) ? definition[method] : undefined;
      if (!attrs || attrs.requestStream || attrs.responseStream) {
        return Promise.reject(new Error(`${serviceName} has no unary method ${method}`));
      }
      const deadlineMs = callOptions.deadlineMs ?? defaultDeadlineMs;
      return metadataFor(callOptions, deadlineMs).then(
        (metadata) =>
          new Promise<ResponseOf<M[typeof method]>>((resolve, reject) => {
            client.makeUnaryRequest<RequestOf<M[typeof method]>, ResponseOf<M[typeof method]>>(
              attrs.path,
              attrs.requestSerialize,
              attrs.responseDeserialize,
              request,
              metadata,
              { deadline: Date.now() + deadlineMs },
              (err, response) => {
                if (err) reject(errorFromStatus(err, `${options.audience} ${method}`));
                else resolve(response as ResponseOf<M[typeof method]>);
              },
            );
          }),
      );
    },
    close() {
      client.close();
    },
  };
}
