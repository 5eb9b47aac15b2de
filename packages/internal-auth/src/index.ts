export * from './keys';
export * from './tokens';
export { verifierFor } from './verifier-for';
