export * from './retry-delay';
