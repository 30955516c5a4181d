// The unit tier stays in-process (test/tiers.ts): a test file outside the process tier may not import
// node:child_process, nor what test support modules offer to run the CLI, the binary or kubectl
// (RUNNERS). A support module that starts processes must say which of its exports do, so that a new
// one cannot slip into the unit tier unnoticed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, matchesGlob } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { isPerfTest, isProcessTest, PERF_TESTS, PROCESS_TESTS } from './tiers.js';

/** Support modules that start a process, and which of their exports do it ('*': all). */
const RUNNERS: Record<string, readonly string[] | '*'> = {
  'test/helpers/cli.ts': ['runCli', 'runCommand', 'cliCommand', 'BIN_SCRIPT', 'PINNED_NODE'],
  'test/helpers/exec-plugin.ts': ['runExecEntry'],
  'test/helpers/device-run.ts': ['startPlugin', 'approvedLogin', 'atTerminal', 'cliAtTerminal'],
  'test/helpers/examples.ts': ['run'],
  'test/helpers/kubectl.ts': '*',
  'test/helpers/installed.ts': '*',
  'test/cache/support.ts': ['getToken', 'spawnCli', 'deadPid'],
  'test/helpers/pe.ts': ['osslVerify'],
};

/** Support modules that run openssl to make test certificates: a fixture, not the product; fine in the unit tier. */
const FIXTURE_TOOLS = ['test/helpers/pki.ts', 'test/helpers/example-hosts.ts'];

/** The unit workers' guard against spawns: it replaces node:child_process's functions and starts nothing. */
const GUARD = 'test/unit-setup.ts';

const CHILD_PROCESS = new Set(['child_process', 'node:child_process']);

/** Each file's syntax tree, made once for all the checks below (a parse of every test file is most of their time). */
const trees = new Map<string, ts.SourceFile>();
function parse(file: string, source: string): ts.SourceFile {
  const key = `${file}\0${source}`;
  let tree = trees.get(key);
  if (!tree) trees.set(key, (tree = ts.createSourceFile(file, source, ts.ScriptTarget.ES2023, true)));
  return tree;
}

interface Use {
  module: string;
  /** The names taken (`*` for a namespace, `default`, or a whole-module dynamic import / require). */
  names: string[];
}

/** What `source` (the file `file`, relative to the root) imports at run time; type-only imports are left out. */
function uses(source: string, file: string): Use[] {
  const found: Use[] = [];
  const resolve = (specifier: string): string =>
    specifier.startsWith('.') ? join(dirname(file), specifier).replace(/\.js$/, '.ts') : specifier;
  const tree = parse(file, source);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (!clause) found.push({ module: resolve(node.moduleSpecifier.text), names: ['*'] });
      else if (!clause.isTypeOnly) {
        const names: string[] = clause.name ? ['default'] : [];
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        if (bindings && ts.isNamedImports(bindings))
          names.push(...bindings.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text));
        if (names.length > 0) found.push({ module: resolve(node.moduleSpecifier.text), names });
      }
    } else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ module: resolve(node.moduleSpecifier.text), names: ['*'] });
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0]!)) {
      const specifier = node.arguments[0].text;
      const dynamic =
        node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require');
      // process.getBuiltinModule('node:child_process'), createRequire(...)('child_process') and the like.
      if (dynamic || CHILD_PROCESS.has(specifier)) found.push({ module: resolve(specifier), names: ['*'] });
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/**
 * What reads as a duration: a clock read (performance.now(), Date.now() minus something, hrtime) or a
 * name for one (ms, elapsed, tookMs, recoveryMs, a duration). A fake clock's reading (`clock.time()`)
 * is not one: it moves only when the test moves it.
 */
const DURATION = /performance\.now\(|Date\.now\(\)\s*-|hrtime|\bms\b|[a-z]Ms\b|elapsed|\btook|[dD]uration|\bgaps?\b/;
/** The time left until an instant (`expiry - Date.now()`): a busy machine shrinks it, as it grows a duration. */
const REMAINING = /-\s*(Date|performance)\.now\(\)/;
/** A clock read now, at the assertion: after the call under test returned. */
const CLOCK = /\b(Date|performance)\.now\(\)/;
const UPPER_BOUNDS = new Set(['toBeLessThan', 'toBeLessThanOrEqual']);
const LOWER_BOUNDS = new Set(['toBeGreaterThan', 'toBeGreaterThanOrEqual']);
/** The comment that says why a bound against a clock cannot fail from a busy machine. */
const SAYS_WHY = /slow|busy/i;

/**
 * Where `source` holds a duration under a bound: `expect(<duration>).toBeLessThan(…)` (or OrEqual),
 * `expect(<time left>).toBeGreaterThan(…)`, or `expect(<duration> < …)`; a name stands for the value it
 * was given (`const left = expiry - Date.now()`). A busy machine makes any duration long and any time
 * left short, so such a test can fail without a fault: it counts the work instead, or lives in the
 * perf tier and compares growth. And where it holds an instant against a clock read on the wrong side
 * of the call: under a stored clock read (`calledAt + 61_000`, read before the call: a busy machine
 * eats the slack) or over a clock read now (`Date.now() + 500_000`, read after it), unless the comment
 * above it says why a busy machine cannot fail it.
 */
function durationBounds(source: string, file: string): string[] {
  const found: string[] = [];
  const tree = parse(file, source);
  const line = (node: ts.Node) => tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1;
  const isExpect = (node: ts.Node): node is ts.CallExpression =>
    ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'expect';
  // What each const was given, and which consts hold a clock read.
  const given = new Map<string, string>();
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      given.set(node.name.text, node.initializer.getText(tree));
    ts.forEachChild(node, collect);
  };
  collect(tree);
  const stored = [...given].filter(([, value]) => /^(Date|performance)\.now\(\)$/.test(value)).map(([name]) => name);
  const storedClock = stored.length > 0 ? new RegExp(`\\b(${stored.join('|')})\\b`) : undefined;
  const text = (node: ts.Expression): string =>
    ts.isIdentifier(node) && given.has(node.text) ? `${node.text} = ${given.get(node.text)}` : node.getText(tree);
  const explained = (node: ts.Node): boolean => {
    let statement: ts.Node = node;
    while (!ts.isExpressionStatement(statement) && statement.parent) statement = statement.parent;
    return (ts.getLeadingCommentRanges(source, statement.getFullStart()) ?? []).some((range) =>
      SAYS_WHY.test(source.slice(range.pos, range.end)),
    );
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const matcher = node.expression.name.text;
      const upper = UPPER_BOUNDS.has(matcher);
      const lower = LOWER_BOUNDS.has(matcher);
      let target: ts.Expression = node.expression.expression;
      if (ts.isPropertyAccessExpression(target) && target.name.text === 'not') target = target.expression;
      const subject = (upper || lower) && isExpect(target) ? target.arguments[0] : undefined;
      if (subject) {
        const said = text(subject);
        const bound = node.arguments.map((argument) => argument.getText(tree)).join(', ');
        const hit = `${file}:${line(node)} ${said} .${matcher}(…)`;
        if (upper && DURATION.test(said)) found.push(hit);
        else if (lower && REMAINING.test(said)) found.push(hit);
        else if (((upper && storedClock?.test(bound)) || (lower && CLOCK.test(bound))) && !explained(node))
          found.push(`${hit} against a clock, with no comment saying why a busy machine cannot fail it`);
      }
    }
    if (isExpect(node)) {
      const subject = node.arguments[0];
      const compares =
        subject &&
        ts.isBinaryExpression(subject) &&
        [
          ts.SyntaxKind.LessThanToken,
          ts.SyntaxKind.LessThanEqualsToken,
          ts.SyntaxKind.GreaterThanToken,
          ts.SyntaxKind.GreaterThanEqualsToken,
        ].includes(subject.operatorToken.kind);
      if (
        compares &&
        [subject.left, subject.right].some((side) => DURATION.test(text(side)) || REMAINING.test(text(side)))
      )
        found.push(`${file}:${line(node)} expect(${subject.getText(tree)})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/** Why `use` starts a process, or undefined. */
function spawning(use: Use): string | undefined {
  if (CHILD_PROCESS.has(use.module)) return `imports ${use.module}`;
  const runners = RUNNERS[use.module];
  if (!runners) return undefined;
  const taken = use.names.filter((name) => runners === '*' || name === '*' || runners.includes(name));
  return taken.length > 0 ? `imports ${taken.join(', ')} from ${use.module}` : undefined;
}

/** The broken rules of a unit-tier file: each import that starts a process. */
function violations(source: string, file: string): string[] {
  return uses(source, file).flatMap((use) => {
    const why = spawning(use);
    return why ? [`${file} ${why}: it spawns a process, so it belongs in a *.process.test.ts or a process folder`] : [];
  });
}

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? entry.name === 'fixtures'
        ? []
        : files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** This file: it shows test/unit-setup.ts refusing a spawn, so it takes node:child_process itself. */
const SELF = 'test/tiers.test.ts';
const all = files('test');
const tests = all.filter((file) => file.endsWith('.test.ts'));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the unit tier', () => {
  it('has no test file that starts a process', () => {
    const unit = tests.filter((file) => !isProcessTest(file) && file !== SELF);
    expect(unit.length).toBeGreaterThan(30);
    expect(unit.flatMap((file) => violations(read(file), file))).toEqual([]);
  });

  it('is what vitest.config.ts runs as the unit project: every other test file matches a process glob', () => {
    for (const file of tests)
      expect(
        PROCESS_TESTS.some((glob) => matchesGlob(file, glob)),
        file,
      ).toBe(isProcessTest(file));
    expect(tests.filter(isProcessTest).length).toBeGreaterThan(40);
  });

  it('knows every support module that starts a process', () => {
    const support = all.filter((file) => !file.endsWith('.test.ts'));
    const starters = support.filter((file) => uses(read(file), file).some((use) => spawning(use) !== undefined));
    expect(starters.filter((file) => !(file in RUNNERS) && !FIXTURE_TOOLS.includes(file) && file !== GUARD)).toEqual(
      [],
    );
    for (const file of [...Object.keys(RUNNERS), ...FIXTURE_TOOLS])
      expect(support, `${file} is listed`).toContain(file);
  });

  it('would catch a unit test that spawns', () => {
    const file = 'test/cache/example.test.ts';
    const source = [
      "import { spawnSync } from 'node:child_process';",
      "import { ROOT, runCli as run, type CliResult } from '../helpers/cli.js';",
      "import * as kubectl from '../helpers/kubectl.js';",
      "import { sandbox, getToken } from './support.js';",
      "import type { Spawned } from './support.js';",
      "const cp = await import('child_process');",
      "import { leaks } from '../helpers/cli.js';",
      "const { spawn } = process.getBuiltinModule('node:child_process');",
    ].join('\n');
    expect(violations(source, file).map((line) => line.replace(/: it spawns.*$/, ''))).toEqual([
      `${file} imports node:child_process`,
      `${file} imports runCli from test/helpers/cli.ts`,
      `${file} imports * from test/helpers/kubectl.ts`,
      `${file} imports getToken from test/cache/support.ts`,
      `${file} imports child_process`,
      `${file} imports node:child_process`,
    ]);
    expect(isProcessTest(file)).toBe(false);
    expect(isProcessTest('test/cache/example.process.test.ts')).toBe(true);
    expect(isProcessTest('test/e2e/anything.test.ts')).toBe(true);
  });

  it('holds no duration against a bound: a busy machine cannot fail it (the perf tier compares growth instead)', () => {
    const outside = all.filter((file) => !isPerfTest(file) && file !== SELF);
    expect(outside.flatMap((file) => durationBounds(read(file), file))).toEqual([]);
    // Nor does it time work at two sizes (test/helpers/growth.ts): that is the perf tier's.
    const timing = outside.filter((file) =>
      uses(read(file), file).some((use) => use.module === 'test/helpers/growth.ts'),
    );
    expect(timing).toEqual([]);
  });

  it('would catch a test that holds a duration against a bound', () => {
    const source = [
      'const started = Date.now();',
      'expect(Date.now() - started).toBeLessThan(5_000);',
      'expect(performance.now() - start).toBeLessThanOrEqual(DEADLINE_MS);',
      'expect(ms, shape.name).toBeLessThan(2_000 + SLACK_MS);',
      'expect(result.tookMs).not.toBeLessThan(1);',
      'expect(elapsed < 9000).toBe(true);',
      'expect(Date.now() - started).toBeGreaterThanOrEqual(250);',
      'expect(clock.time() - START).toBeLessThanOrEqual(1_025);',
      'expect(steps).toBeLessThan(4 * small);',
      'const left = Date.parse(expiry) - Date.now();',
      'expect(left).toBeGreaterThan(520_000);',
      'const waited = Date.now() - started;',
      'expect(waited).toBeLessThan(5_000);',
      'const calledAt = Date.now();',
      'expect(given).toBeLessThanOrEqual(calledAt + 61_000);',
      'expect(given).toBeGreaterThan(Date.now() + 500_000);',
      '// Not slowness-bound: fetchedAt was read once the call returned.',
      'expect(given).toBeLessThanOrEqual(calledAt + 20_000);',
      'expect(given).toBeLessThanOrEqual(Date.now() + 60_000);',
      'expect(given).toBeGreaterThanOrEqual(calledAt - 1_000);',
      'expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);',
      'expect(left >= 500).toBe(true);',
    ].join('\n');
    expect(durationBounds(source, 'x.test.ts').map((hit) => hit.split(' ')[0])).toEqual([
      'x.test.ts:2',
      'x.test.ts:3',
      'x.test.ts:4',
      'x.test.ts:5',
      'x.test.ts:6',
      'x.test.ts:11',
      'x.test.ts:13',
      'x.test.ts:15',
      'x.test.ts:16',
      'x.test.ts:22',
    ]);
  });

  it('keeps the perf tier in process, and every perf file in it', () => {
    const perf = tests.filter(isPerfTest);
    expect(perf.length).toBeGreaterThan(0);
    for (const file of perf) expect(isProcessTest(file), file).toBe(false);
    for (const file of tests)
      expect(
        PERF_TESTS.some((glob) => matchesGlob(file, glob)),
        file,
      ).toBe(isPerfTest(file));
  });

  it('runs every vitest project in one of npm test, test:perf and test:release, and CI runs all three', () => {
    const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
    const projects = [...read('vitest.config.ts').matchAll(/\bname: '([\w-]+)'/g)].map((m) => m[1]!);
    const npmTest = [
      .../const NPM_TEST_PROJECTS = \[([^\]]*)\]/.exec(read('scripts/test.mjs'))![1]!.matchAll(/'([\w-]+)'/g),
    ].map((m) => m[1]!);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const separate = ['perf', 'release'].filter((tier) => scripts[`test:${tier}`] === `vitest run --project ${tier}`);
    expect(separate).toEqual(['perf', 'release']);
    expect(scripts['test']).toBe('node scripts/test.mjs');
    expect([...npmTest, ...separate].sort()).toEqual([...projects].sort());
    expect(read('.ci/run')).toMatch(/^npm test\nnpm run test:perf\nnpm run test:release\n/m);
    // A newcomer can run what CI runs: the README shows it.
    expect(read('README.md')).toContain('\nnpm ci && npm test && npm run test:perf && npm run test:release\n');
  });

  it('refuses a spawn at run time in its workers (test/unit-setup.ts), but for openssl, which makes the test certificates', () => {
    const childProcess = process.getBuiltinModule('node:child_process');
    expect(() => childProcess.spawnSync('true')).toThrow('a unit-tier test ran spawnSync(true)');
    expect(() => childProcess.execFileSync(process.execPath, ['-e', '0'])).toThrow('a unit-tier test ran execFileSync');
    expect(() => childProcess.execSync('sh -c true')).toThrow('a unit-tier test ran execSync(sh)');
    expect(childProcess.execFileSync('openssl', ['version'], { encoding: 'utf8' })).toMatch(/^OpenSSL /);
  });
});
