export * from './test-env';
export * from './system';
