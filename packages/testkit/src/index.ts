export * from './test-env';
export * from './system';
export * from './rabbit';
export * from './memory';
export * from './private-rabbit';
export * from './test-keys';
export * from './webhook-receiver';
