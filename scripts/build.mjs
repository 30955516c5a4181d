// Bundles src/main.ts into dist/cli.mjs for the npm bin (ESM, code-split so got, eta and json-p3
// load only when a command needs them) and dist/sea/cli.cjs for the single executable.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { examplesDefine } from './examples.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const common = {
  entryPoints: { cli: 'src/main.ts' },
  bundle: true,
  platform: 'node',
  // The npm package runs on Node >= 22 (test/package/ proves it); the single binary is made of the pinned 24.
  target: 'node22',
  define: { __VERSION__: JSON.stringify(version), __EXAMPLES__: examplesDefine(new URL('../', import.meta.url)) },
  legalComments: 'linked',
  logLevel: 'warning',
};

const { outputFiles } = await build({
  ...common,
  write: false,
  format: 'esm',
  splitting: true,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // Some CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});

// Each file is written beside its place and renamed into it, and only then are the chunks of earlier
// builds removed (they would ship in the package otherwise): a build while a process runs dist/cli.mjs
// (`npm run release` packs, and prepack builds, while the test suite runs the CLI) never shows that
// process a missing or half-written chunk. The same sources give the same chunk names.
const written = new Set();
for (const file of outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  const temp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temp, file.contents);
  renameSync(temp, file.path);
  written.add(file.path);
}
const chunks = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'chunks');
for (const name of readdirSync(chunks)) {
  const path = join(chunks, name);
  if (!written.has(path)) rmSync(path, { force: true });
}
