// Mutation testing of the security core (issue 29): `npm run test:mutation`, not part of `npm test`.
// One module at a time: `MUTATION_MODULE=redact npm run test:mutation` (redact, template, credential,
// cache). How to read the report: docs/development.md.
const MODULES = {
  redact: ['src/redact/**/*.ts'],
  template: ['src/template/evaluate*.ts'],
  credential: ['src/credential/extract.ts'],
  cache: ['src/cache/failure.ts', 'src/cache/key.ts'],
};
const module = process.env.MUTATION_MODULE;
if (module !== undefined && MODULES[module] === undefined)
  throw new Error(`MUTATION_MODULE is one of ${Object.keys(MODULES).join(', ')}, not ${module}`);

export default {
  testRunner: 'vitest',
  // The in-process tests only (vitest.mutation.config.ts picks the module's files by MUTATION_MODULE).
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  // Each mutant runs only the tests that reached its code in the first (coverage) run.
  coverageAnalysis: 'perTest',
  mutate: module !== undefined ? MODULES[module] : Object.values(MODULES).flat(),
  // The machine (and CI) has two cores.
  concurrency: 2,
  // Results of unchanged mutants and tests are reused from the last run of the same module (kept out of git).
  incremental: true,
  incrementalFile: `reports/stryker-incremental${module !== undefined ? `-${module}` : ''}.json`,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  timeoutMS: 10_000,
  thresholds: { high: 85, low: 80, break: null },
};
