export * from './profiles.events';
export * from './competitors.grpc';
export * from './publishing.events';
export * from './posts.grpc';
export * from './media.grpc';
export * from './domain.events';
