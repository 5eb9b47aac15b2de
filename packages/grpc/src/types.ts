/**
 * The unary methods of a service with their request and response types, shared by the server's
 * handlers and the typed client: `type PostsMethods = { GetPost: [GetPostRequest, Post] }`.
 */
export type MethodMap<M> = { [K in keyof M]: readonly [unknown, unknown] };

export type RequestOf<T> = T extends readonly [infer Req, unknown] ? Req : never;
export type ResponseOf<T> = T extends readonly [unknown, infer Res] ? Res : never;

/**
 * Marks a server-streaming method in a MethodMap: `{ ReadFile: [ReadFileRequest, ServerStream<Chunk>] }`.
 * Only a type: nothing of this shape exists at run time.
 */
export interface ServerStream<T> {
  readonly __serverStream: T;
}

export type StreamItemOf<T> = ResponseOf<T> extends ServerStream<infer R> ? R : never;
