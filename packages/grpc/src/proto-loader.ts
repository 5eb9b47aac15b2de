import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/**
 * The repo's `proto/` folder: three levels up from both src/ (tests) and dist/ (built code).
 * Container images that do not keep the repo layout set PROTO_DIR.
 */
export function protoRoot(): string {
  return process.env['PROTO_DIR'] ?? path.resolve(__dirname, '../../../proto');
}

const definitions = new Map<string, protoLoader.PackageDefinition>();
const objects = new Map<string, grpc.GrpcObject>();

/** Loads (once per proto root and file) a proto file given relative to the proto root. */
export function loadPackageDefinition(relativePath: string): protoLoader.PackageDefinition {
  const root = protoRoot();
  const key = `${root}\0${relativePath}`;
  let def = definitions.get(key);
  if (!def) {
    def = protoLoader.loadSync(relativePath, {
      // Field names stay as written in the proto (snake_case), so code and contract read the same.
      keepCase: true,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
      includeDirs: [root],
    });
    definitions.set(key, def);
  }
  return def;
}

/** The loaded proto as a grpc-js object tree (`loadProto('posts/v1/posts.proto').posts.v1...`). */
export function loadProto(relativePath: string): grpc.GrpcObject {
  const key = `${protoRoot()}\0${relativePath}`;
  let obj = objects.get(key);
  if (!obj) {
    obj = grpc.loadPackageDefinition(loadPackageDefinition(relativePath));
    objects.set(key, obj);
  }
  return obj;
}

/** A service by its full name, e.g. `serviceDefinition('posts/v1/posts.proto', 'posts.v1.PostsService')`. */
export function serviceDefinition(relativePath: string, fullName: string): grpc.ServiceDefinition {
  const def = loadPackageDefinition(relativePath)[fullName];
  // Messages and enums carry a `format` field; a service is a map of method definitions.
  if (!def || 'format' in def) {
    throw new Error(`${relativePath} defines no service named ${fullName}`);
  }
  return def as grpc.ServiceDefinition;
}

/** `posts.v1.PostsService`, read from the path of any of its methods (`/posts.v1.PostsService/GetPost`). */
export function serviceNameOf(definition: grpc.ServiceDefinition): string {
  const first = Object.values(definition)[0];
  if (!first) throw new Error('service definition has no methods');
  return first.path.split('/')[1] ?? '';
}
