export { loadProto, loadPackageDefinition, protoRoot, serviceDefinition, serviceNameOf } from './proto-loader';
export {
  GrpcServer,
  type AllowedCallers,
  type CallContext,
  type GrpcServerOptions,
  type ServerStreamHandler,
  type ServiceHandlers,
  type UnaryHandler,
} from './server';
export { createGrpcClient, type CallOptions, type GrpcClient, type GrpcClientOptions } from './client';
export { checkHealth, HEALTH_SERVICE, type ServingStatus } from './health';
export { errorFromStatus, errorMetadata, GRPC_ERROR_STATUS_KEY, REQUEST_ID_KEY } from './metadata';
export type { MethodMap, RequestOf, ResponseOf, ServerStream, StreamItemOf } from './types';
export * from './neighbour-failure';
