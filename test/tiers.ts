// The test tiers, one definition for vitest.config.ts (which files each project runs) and for
// test/tiers.test.ts (which keeps the unit tier free of processes and of wall-clock bounds). A file that
// spawns a process (the CLI, the binary, kubectl, a shell, a tool) lives in one of PROCESS_DIRS or is
// named `*.process.test.ts`; a file that measures time on large inputs is named `*.perf.test.ts` (the
// perf tier, in-process too); every other test file is the unit tier (`npm run test:unit`).

/** Folders whose tests run the product (or another program) as a process. */
export const PROCESS_DIRS = ['e2e', 'integration', 'network', 'package', 'release', 'examples'] as const;

/** vitest globs of the process tier. */
export const PROCESS_TESTS = [`test/{${PROCESS_DIRS.join(',')}}/**/*.test.ts`, 'test/**/*.process.test.ts'];

/**
 * The process tests about the npm package and the bin script as such: they run bin/webapi-credential.js on
 * the pinned Node (vitest project `bin`). Every other process test runs once, against the single binary
 * (project `binary`), which is what users install.
 */
export const BIN_TESTS = ['test/package/**/*.test.ts', 'test/cache/hot-path.process.test.ts'];

/**
 * The release tier (`npm run test:release`, vitest project `release`): `npm run release` itself, six
 * ~100 MB executables of every platform, released twice and run under qemu, Wine and buildah. It is
 * a process test like the others, but it tests the release pipeline rather than the code (which the
 * binary project tests on this machine's binary) and alone takes longer than the rest of the suite
 * on two cores: `.ci/run` runs it after `npm test`, and the release workflow through `.ci/run`. With it
 * go the checks of the release's own tools against Go's cross-builds (the Mach-O signer against Go's
 * linker, the PE cleaner on a windows/amd64 program): building Go's runtime for another platform is
 * 25 s of CPU, a twentieth of npm test's, to test scripts/ that only `npm run release` runs.
 */
export const RELEASE_TESTS = [
  'test/release/release.test.ts',
  'test/release/macho-sign.test.ts',
  'test/release/pe-clean.test.ts',
];

/**
 * vitest glob of the perf tier (`npm run test:perf`): the large inputs, timed against each other. Not part of
 * npm test (53 s of CPU, a tenth of its time on two cores): `.ci/run` runs it after npm test (issue 34).
 */
export const PERF_TESTS = ['test/**/*.perf.test.ts'];

/** Whether `file` (relative to the repository, with `/`) belongs to the process tier. */
export function isProcessTest(file: string): boolean {
  return file.endsWith('.process.test.ts') || PROCESS_DIRS.some((dir) => file.startsWith(`test/${dir}/`));
}

/** Whether `file` belongs to the perf tier, the one place a test may hold a duration against a bound. */
export function isPerfTest(file: string): boolean {
  return file.endsWith('.perf.test.ts');
}
