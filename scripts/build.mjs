// Bundles src/main.ts into dist/cli.mjs for the npm bin (ESM, code-split so got, eta and json-p3
// load only when a command needs them) and dist/sea/cli.cjs for the single executable.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { examplesDefine } from './examples.mjs';

// Stale chunks of earlier builds would ship in the package otherwise.
rmSync(new URL('../dist/chunks', import.meta.url), { recursive: true, force: true });

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

await build({
  ...common,
  format: 'esm',
  splitting: true,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // Some CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
