// The test tiers, one definition for vitest.config.ts (which files each project runs) and for
// test/tiers.test.ts (which keeps the unit tier free of processes). A file that spawns a process
// (the CLI, the binary, kubectl, a shell, a tool) lives in one of PROCESS_DIRS or is named
// `*.process.test.ts`; every other test file is in-process: the unit tier (`npm run test:unit`).

/** Folders whose tests run the product (or another program) as a process. */
export const PROCESS_DIRS = ['e2e', 'integration', 'network', 'package', 'release', 'examples'] as const;

/** vitest globs of the process tier. */
export const PROCESS_TESTS = [`test/{${PROCESS_DIRS.join(',')}}/**/*.test.ts`, 'test/**/*.process.test.ts'];

/** Whether `file` (relative to the repository, with `/`) belongs to the process tier. */
export function isProcessTest(file: string): boolean {
  return file.endsWith('.process.test.ts') || PROCESS_DIRS.some((dir) => file.startsWith(`test/${dir}/`));
}
