export * from './address-rules';
export * from './resolve';
