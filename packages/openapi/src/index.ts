export { ContractChecker } from './contract';
export { loadOpenApi, SPEC_DIR } from './load-openapi';
