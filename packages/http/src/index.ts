export * from './request-context';
export * from './create-app';
export * from './validation';
export * from './pagination';
export * from './http-server';
export * from './service-http';
export * from './access-log';
export * from './metrics';
