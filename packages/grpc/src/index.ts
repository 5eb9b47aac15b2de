export { loadProto, loadPackageDefinition, protoRoot, serviceDefinition, serviceNameOf } from './proto-loader';
