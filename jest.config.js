/** Unit, HTTP, workflow and integration tests. Integration infrastructure (Temporal dev server, FerretDB on
 * PostgreSQL) is started once per run by test/helpers/global-setup.ts and shared through environment variables. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/src'],
  testMatch: ['**/*.test.ts'],
  // Fixture projects hold package.json files of their own (several with the same name): not modules of this one.
  modulePathIgnorePatterns: ['<rootDir>/test/fixtures/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/helpers/totals-reporter.js'],
};
