export * from './profiles.events';
export * from './publishing.events';
