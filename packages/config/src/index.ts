export * from './load-config';
export * from './common';
export * from './plans';
export * from './secrets';
