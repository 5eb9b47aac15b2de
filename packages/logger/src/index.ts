export * from './context';
export * from './create-logger';
