export * from './envelope';
export * from './retry-delay';
export * from './topology';
