export * from './profiles.events';
export * from './competitors.grpc';
export * from './publishing.events';
