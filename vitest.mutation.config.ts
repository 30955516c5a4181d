import { defineConfig } from 'vitest/config';

// The tests `npm run test:mutation` (Stryker, stryker.config.mjs) runs against each mutant: the
// in-process files that exercise the mutated modules. No file here may start a process: those run
// dist/, which a mutant never reaches, so they would only cost time. When `npm run test:unit` exists,
// its file list is the natural replacement for this one.
if (Number(process.versions.node.split('.')[0]) < 24) {
  throw new Error(`the tests run on the pinned Node 24 (npm run test:mutation), not ${process.version}`);
}

/**
 * The in-process test files of each mutated module. Each mutant runs only the tests that reached it,
 * but the first (coverage) run runs them all, and a mutant that survives runs every test that reached
 * it: the renderer's tests all reach the redactor, so `MUTATION_MODULE=redact` leaves them out.
 */
const FILES: Record<string, string[]> = {
  // Not bounded.test.ts: it times redaction against a 2 s deadline, which instrumented code on a busy
  // machine misses (the deadline's behaviour is pinned without a clock by deadline.test.ts).
  redact: [
    'test/redact/automaton.test.ts',
    'test/redact/redactor.test.ts',
    'test/redact/echoes.test.ts',
    'test/redact/deadline.test.ts',
    'test/redact/deadline-cadence.test.ts',
    'test/redact/redactor-edges.test.ts',
    'test/redact/loose-forms.test.ts',
    'test/redact/echo-forms.test.ts',
    'test/redact/loose-encoded.test.ts',
    'test/redact/loose-unicode-spaces.test.ts',
    'test/redact/boolean-both.test.ts',
    'test/redact/decoded-boundaries.test.ts',
    'test/redact/loose-boundaries.test.ts',
    'test/request/steps.test.ts',
    'test/request/spelled.test.ts',
    'test/cli/report.test.ts',
  ],
  template: [
    'test/template/template.test.ts',
    'test/template/taint.test.ts',
    'test/template/comparisons.test.ts',
    'test/template/lookups.test.ts',
    'test/template/bounds.test.ts',
    'test/template/bounds.perf.test.ts',
    'test/template/file-paths.test.ts',
    'test/template/one-bit.test.ts',
    'test/template/trust.test.ts',
    'test/template/one-bit-truthiness.test.ts',
    'test/template/secret-data-leaves.test.ts',
    'test/template/secret-chosen-path.test.ts',
    'test/template/jwt.test.ts',
    'test/template/echoed-results.test.ts',
    'test/template/untaken-branches.test.ts',
    'test/template/missing-after-decided.test.ts',
    'test/template/withheld.test.ts',
    'test/template/dry-run.test.ts',
  ],
  credential: ['test/credential/extract.test.ts'],
  cache: [
    'test/cache/failure.test.ts',
    'test/cache/outage-rules.test.ts',
    'test/cache/key.test.ts',
    'test/cache/store.test.ts',
    'test/cache/ref.test.ts',
  ],
};

const module = process.env['MUTATION_MODULE'];
if (module !== undefined && FILES[module] === undefined)
  throw new Error(`MUTATION_MODULE is one of ${Object.keys(FILES).join(', ')}, not ${module}`);

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The tests that show work growing linearly read texts of megabytes; instrumented code (every
    // statement counted) cannot within the timeout, so they read texts 16 times smaller here
    // (test/redact/scale.ts): the growth they check is the same.
    env: { WEBAPI_CREDENTIAL_MUTATION: '1' },
    include: module !== undefined ? FILES[module] : Object.values(FILES).flat(),
  },
});
