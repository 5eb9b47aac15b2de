export * from './broker';
export * from './envelope';
export * from './permanent-error';
export * from './retry-delay';
export * from './topology';
