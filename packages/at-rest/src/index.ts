export * from './at-rest-cipher';
