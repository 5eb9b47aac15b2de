export * from './broker';
export * from './correlation';
export * from './envelope';
export * from './idempotent';
export * from './permanent-error';
export * from './retry-delay';
export * from './topology';
