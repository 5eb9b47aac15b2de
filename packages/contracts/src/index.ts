export * from './profiles.events';
export * from './competitors.grpc';
