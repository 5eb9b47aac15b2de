export * from './profiles.events';
