export * from './load-config';
export * from './common';
export * from './plans';
