export { loadProto, loadPackageDefinition, protoRoot, serviceDefinition, serviceNameOf } from './proto-loader';
export { errorFromStatus, errorMetadata, GRPC_ERROR_STATUS_KEY, REQUEST_ID_KEY } from './metadata';
