import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { examplesDefine } from './scripts/examples.mjs';
import { BIN_TESTS, PERF_TESTS, PROCESS_TESTS, RELEASE_TESTS } from './test/tiers.js';

// `node_modules/.bin/vitest` started by hand runs on the system Node (20 here), where the code under
// test behaves differently (no proxy support in https.Agent): refuse rather than mislead.
if (Number(process.versions.node.split('.')[0]) < 24) {
  throw new Error(
    `the tests run on the pinned Node 24 (npm test, or node_modules/.bin/node node_modules/.bin/vitest), not ${process.version}`,
  );
}

const binary = fileURLToPath(new URL('./dist/webapi-credential', import.meta.url));

export default defineConfig({
  // __START__: src/main.ts, imported by test/helpers/in-process.ts for its real deps, must not run the CLI.
  // __EXAMPLES__: init's providers, embedded from examples/ as the build embeds them (scripts/build.mjs).
  define: {
    __VERSION__: JSON.stringify('0.0.0-test'),
    __START__: 'false',
    __EXAMPLES__: examplesDefine(new URL('./', import.meta.url)),
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests spawn the CLI and kubectl; two workers suit the 2-core CI machines (four were
    // no faster: 526 s against 508 s of npm test's tiers, the suite is CPU-bound).
    pool: 'forks',
    maxWorkers: 2,
    // Files share a worker's modules (a worker only runs files of its own project): no test leaves
    // module state behind (no vi.mock, no fake timers; the one env change, code-cache.test.ts's PATH,
    // is put back; test/unit-setup.ts wraps child_process once per unit or perf worker). Each file importing
    // the helpers, oidc-provider and playwright-core again cost 93 s of CPU in npm test's tiers on two
    // quiet cores; shared, 24 s (npm test's vitest 508 s before, 446 s after; the unit tier alone: its
    // 121 files took 92 s isolated, 28-32 s shared).
    isolate: false,
    projects: [
      // The unit tier (npm run test:unit): every test that runs in this process, no child process and
      // no binary (test/tiers.ts says which files; test/tiers.test.ts and test/unit-setup.ts keep them so).
      // Its timeout only ends a test that hangs: room for a machine many times busier than its cores
      // (a property over large texts took 90 s at a load of 30).
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...PROCESS_TESTS, ...PERF_TESTS],
          setupFiles: ['test/unit-setup.ts'],
          testTimeout: 180_000,
        },
      },
      // The perf tier (npm run test:perf): in-process like the unit tier, the large inputs whose time
      // is compared with the time of a smaller one (growth, never a fixed number of milliseconds); the
      // timeout only ends a run that went quadratic.
      {
        extends: true,
        test: { name: 'perf', include: PERF_TESTS, setupFiles: ['test/unit-setup.ts'], testTimeout: 300_000 },
      },
      // The process tier runs each file once: against the single executable (npm test builds it first),
      // what users install, but for the files about the npm package and the bin script as such.
      { extends: true, test: { name: 'bin', include: BIN_TESTS } },
      {
        extends: true,
        test: {
          name: 'binary',
          include: PROCESS_TESTS,
          exclude: [...configDefaults.exclude, ...BIN_TESTS, ...RELEASE_TESTS],
          env: { WEBAPI_CREDENTIAL_BIN: binary },
        },
      },
      // The release tier (npm run test:release; .ci/run runs it after npm test): every platform's release.
      { extends: true, test: { name: 'release', include: RELEASE_TESTS } },
    ],
  },
});
