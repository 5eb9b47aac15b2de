// One jest run for the whole workspace. Workspace packages are mapped to their sources so tests
// never depend on a stale build; services started as processes by component/e2e tests run from dist.
const transform = {
  '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const moduleNameMapper = { '^@social/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts' };
const common = {
  transform,
  moduleNameMapper,
  testEnvironment: 'node',
  rootDir: __dirname,
  setupFiles: ['<rootDir>/scripts/jest-setup-env.js'],
};

module.exports = {
  // Integration and e2e tests start real processes and talk to real infrastructure.
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/{packages,services,gateway}/**/src/**/*.test.ts',
        '<rootDir>/gateway/src/**/*.test.ts',
        '<rootDir>/deploy/test/**/*.test.ts',
      ],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{packages,services}/*/test/**/*.test.ts', '<rootDir>/gateway/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
      globalSetup: '<rootDir>/scripts/jest-global-setup.js',
      globalTeardown: '<rootDir>/scripts/jest-global-teardown.js',
    },
    {
      ...common,
      displayName: 'integration-s3',
      testMatch: ['<rootDir>/services/media/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
      setupFiles: [...common.setupFiles, '<rootDir>/scripts/jest-media-s3.js'],
      globalSetup: '<rootDir>/scripts/jest-global-setup.js',
      globalTeardown: '<rootDir>/scripts/jest-global-teardown.js',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/scripts/jest-contract-setup.ts'],
      globalSetup: '<rootDir>/scripts/jest-global-setup.js',
      globalTeardown: '<rootDir>/scripts/jest-global-teardown.js',
    },
    {
      ...common,
      displayName: 'e2e-s3',
      // The media e2e tests and the memory proof once more, on the S3-compatible store (as
      // integration-s3 does for the component tests).
      testMatch: ['<rootDir>/e2e/media.e2e.test.ts', '<rootDir>/e2e/media-memory.e2e.test.ts'],
      setupFiles: [...common.setupFiles, '<rootDir>/scripts/jest-media-s3.js'],
      setupFilesAfterEnv: ['<rootDir>/scripts/jest-contract-setup.ts'],
      globalSetup: '<rootDir>/scripts/jest-global-setup.js',
      globalTeardown: '<rootDir>/scripts/jest-global-teardown.js',
    },
  ],
};
