export * from './context';
export * from './create-logger';
export * from './redact-url';
