// Mutation testing of the security core (issue 29): `npm run test:mutation`, not part of `npm test`.
// How to run one module and how to read the report: docs/development.md.
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  // Each mutant runs only the tests that reached its code in the first (coverage) run.
  coverageAnalysis: 'perTest',
  mutate: [
    'src/redact/**/*.ts',
    'src/template/evaluate*.ts',
    'src/credential/extract.ts',
    'src/cache/failure.ts',
    'src/cache/key.ts',
  ],
  // The machine (and CI) has two cores.
  concurrency: 2,
  // Results of unchanged mutants and tests are reused from the last run (kept out of git).
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  timeoutMS: 10_000,
  thresholds: { high: 85, low: 80, break: null },
};
