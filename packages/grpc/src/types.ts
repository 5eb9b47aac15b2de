/**
 * The unary methods of a service with their request and response types, shared by the server's
 * handlers and the typed client: `type PostsMethods = { GetPost: [GetPostRequest, Post] }`.
 */
export type MethodMap<M> = { [K in keyof M]: readonly [unknown, unknown] };

export type RequestOf<T> = T extends readonly [infer Req, unknown] ? Req : never;
export type ResponseOf<T> = T extends readonly [unknown, infer Res] ? Res : never;
