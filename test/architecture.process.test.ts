// The architecture's rules (docs/architecture.md). `npm test` runs dependency-cruiser over src/ with
// .dependency-cruiser.cjs (npm run lint) before this suite; here each rule is shown to catch what it names, on a
// tree made to break it, and the pure folders are checked for what imports cannot show: the
// process global and the clock.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

const PURE = ['src/config', 'src/template', 'src/credential'];

/** The rule each use of a global in `source` breaks: the pure core gets process and time as arguments. */
function globalsUsed(source: string, file = 'x.ts'): string[] {
  const found: string[] = [];
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.ES2023, true);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && !isPropertyName(node)) {
      const at = `${file}:${tree.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      if (node.text === 'process') found.push(`pure-core-no-process ${at}`);
      if (['performance', 'setTimeout', 'setInterval', 'setImmediate'].includes(node.text))
        found.push(`pure-core-no-clock ${at} (${node.text})`);
      if (node.text === 'Date') {
        const parent = node.parent;
        const reads = ts.isPropertyAccessExpression(parent) && parent.expression === node && parent.name.text === 'now';
        const argless =
          (ts.isNewExpression(parent) || ts.isCallExpression(parent)) &&
          parent.expression === node &&
          (parent.arguments?.length ?? 0) === 0;
        if (reads || argless) found.push(`pure-core-no-clock ${at} (${reads ? 'Date.now' : 'Date()'})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

function isPropertyName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    ((ts.isPropertyAssignment(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent)) &&
      parent.name === node) ||
    (ts.isQualifiedName(parent) && parent.right === node)
  );
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the pure folders (config/, template/, credential/)', () => {
  it('read neither the process global nor the clock', () => {
    const files = PURE.flatMap(sources);
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => globalsUsed(readFileSync(join(ROOT, file), 'utf8'), file))).toEqual([]);
  });

  it('would be caught reading them', () => {
    const source = [
      'const env = process.env;',
      'const t = Date.now();',
      'const d = new Date();',
      'const ok = new Date(0);',
      'const p = performance.now();',
      'setTimeout(() => {}, 1);',
      'const fine = { process: 1 }.process;',
    ].join('\n');
    expect(globalsUsed(source).map((rule) => rule.split(' ')[0])).toEqual([
      'pure-core-no-process',
      'pure-core-no-clock',
      'pure-core-no-clock',
      'pure-core-no-clock',
      'pure-core-no-clock',
    ]);
  });
});

describe('dependency-cruiser rules', () => {
  const tree = mkdtempSync(join(tmpdir(), 'webapi-credential-architecture-'));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  /** One module per broken rule, in a tree shaped like src/. */
  const broken: Record<string, string> = {
    'src/main.ts': "import './cli/program.js';\nimport './request/http.js';\n",
    'src/cli/program.ts': 'export const program = 1;\n',
    'src/cli/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'src/cli/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    'src/config/load.ts': "import { readFileSync } from 'node:fs';\nexport const load = readFileSync;\n",
    'src/template/clock.ts': "import { setTimeout } from 'node:timers/promises';\nexport const wait = setTimeout;\n",
    'src/use-case/get-token.ts':
      "import { program } from '../cli/program.js';\nimport { send } from '../request/http.js';\nimport { request } from 'node:https';\nimport './missing.js';\nexport const all = [program, send, request];\n",
    'src/request/http.ts': 'export const send = 1;\n',
    'src/cache/index.ts': "export { lockPath } from './lock.js';\n",
    'src/cache/lock.ts': 'export const lockPath = 1;\n',
    'src/cli/doctor-stages.ts':
      "import { lockPath } from '../cache/lock.js';\nimport type {} from '../cache/index.js';\nexport const stages = lockPath;\n",
    'src/cli/fast-path.ts': "import type { Lock } from '../cache/lock.js';\nexport type Held = Lock;\n",
    'src/kubeconfig/merge.ts':
      "import { all } from '../use-case/get-token.js';\nimport type {} from '../use-case/get-token.js';\nexport const merged = all;\n",
  };
  for (const [file, text] of Object.entries(broken)) {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    writeFileSync(join(tree, file), text);
  }
  writeFileSync(
    join(tree, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: false } }),
  );

  let report: string | undefined;
  /** dependency-cruiser's report on the broken tree, made once. */
  function cruise(): string {
    if (report !== undefined) return report;
    try {
      report = execFileSync(
        process.execPath,
        [
          join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
          'src',
          '--config',
          join(ROOT, '.dependency-cruiser.cjs'),
          '--output-type',
          'err',
        ],
        { cwd: tree, encoding: 'utf8', stdio: 'pipe' },
      );
    } catch (error) {
      const { stdout, stderr } = error as { stdout: string; stderr: string };
      report = stdout + stderr;
    }
    return report;
  }

  it.each([
    ['no-cycles', 'src/cli/a.ts'],
    ['pure-core-no-io', 'src/config/load.ts'],
    ['pure-core-no-io', 'src/template/clock.ts'],
    ['nothing-imports-cli', 'src/use-case/get-token.ts'],
    ['only-main-builds-real-deps', 'src/use-case/get-token.ts'],
    ['only-main-builds-real-deps', 'src/config/load.ts'],
    ['network-only-in-the-http-client', 'src/use-case/get-token.ts'],
    ['no-unresolvable', 'src/use-case/get-token.ts'],
    ['cache-behind-its-face', 'src/cli/doctor-stages.ts'],
    ['cache-behind-its-face', 'src/cli/fast-path.ts'],
    ['kubeconfig-edits-files-only', 'src/kubeconfig/merge.ts'],
  ])('%s is named for %s', (rule, file) => {
    const lines = cruise()
      .split('\n')
      .filter((line) => line.includes(`${rule}:`));
    expect(
      lines.some((line) => line.includes(file)),
      `${rule} for ${file} in:\n${cruise()}`,
    ).toBe(true);
  });

  it('lets anything import the cache through its face, and the cache import its own modules', () => {
    const lines = cruise()
      .split('\n')
      .filter((line) => line.includes('cache-behind-its-face:'));
    expect(
      lines.filter((line) => line.includes('src/cache/index.ts →') || line.includes('→ src/cache/index.ts')),
    ).toEqual([]);
  });
});
