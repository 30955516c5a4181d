// What every single executable shares: the one-file CommonJS bundle, the SEA blob made from it by a
// Node of the target's exact version, and postject's injection. Used by build-binary.mjs (this
// machine's binary) and release.mjs (every platform npm ships a Node for).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { examplesDefine } from './examples.mjs';

export const root = fileURLToPath(new URL('../', import.meta.url));
export const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

// Dependencies that neither a cached credential nor a plain fetch loads: re2js (match()/search() in
// JSONPaths) and jose (jwt()). In the executable they are SEA assets, compiled the first time a config
// needs one, so that every start does not pay for their source: with them in the main script a cached
// credential cost ~6 ms more (one bundle of 775 kB instead of 486 kB; docs/performance.md).
const LAZY = ['re2js', 'jose'];

const seaCommon = { bundle: true, platform: 'node', format: 'cjs', minifyWhitespace: true, minifySyntax: true, legalComments: 'none', logLevel: 'warning' };

/** An import of a LAZY package, in the executable: its bundle, read from the SEA's assets when first required. */
const lazyAssets = {
  name: 'lazy-sea-assets',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(${LAZY.join('|')})$`) }, (args) => ({ path: args.path, namespace: 'sea-asset' }));
    build.onLoad({ filter: /.*/, namespace: 'sea-asset' }, (args) => ({
      loader: 'js',
      contents: `const { getAsset } = require('node:sea');
const { compileFunction } = require('node:vm');
const module_ = { exports: {} };
compileFunction(getAsset(${JSON.stringify(`${args.path}.cjs`)}, 'utf8'), ['exports', 'require', 'module'], { filename: ${JSON.stringify(`sea-asset:${args.path}.cjs`)} })(module_.exports, require, module_);
module.exports = module_.exports;
`,
    }));
  },
};

/**
 * `${out}cli.cjs`: the CLI in one CommonJS file, and the LAZY packages each in its own (the SEA's
 * assets), for the Node line `target` (node24, or node22 for a platform npm ships no fitting 24 for).
 * `inputs`: every source file that went in (release.mjs names the packages they belong to in the SBOM).
 */
export async function bundle(out, target = 'node24') {
  const main = `${out}cli.cjs`;
  const inputs = [];
  const built = await build({
    ...seaCommon,
    target,
    metafile: true,
    entryPoints: [`${root}src/main.ts`],
    outfile: main,
    define: { __VERSION__: JSON.stringify(version), __EXAMPLES__: examplesDefine(new URL('../', import.meta.url)) },
    plugins: [lazyAssets],
  });
  inputs.push(...Object.keys(built.metafile.inputs));
  const assets = {};
  for (const name of LAZY) {
    assets[`${name}.cjs`] = `${out}${name}.cjs`;
    const asset = await build({ ...seaCommon, target, metafile: true, stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root, loader: 'js' }, outfile: assets[`${name}.cjs`] });
    inputs.push(...Object.keys(asset.metafile.inputs));
  }
  return { main, assets, inputs };
}

// Both tools are chatty on success (postject warns about ELF notes it leaves alone): show their
// output only when they fail.
export function quietly(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`${[command, ...args].join(' ')} failed with exit code ${result.status}`);
  }
}

/**
 * The SEA blob of `main`, made by `node` (the target's exact version: the blob format is the
 * Node's). The V8 code cache fits only that arch and that very binary: `codeCache` where they match.
 */
export function blob(node, { main, assets }, output, codeCache) {
  const config = `${output}.json`;
  writeFileSync(
    config,
    JSON.stringify({
      main,
      output,
      assets,
      disableExperimentalSEAWarning: true,
      useCodeCache: codeCache,
      useSnapshot: false,
      // A user's NODE_OPTIONS must not change (or break) the plugin.
      execArgvExtension: 'none',
    }),
  );
  quietly(node, ['--experimental-sea-config', config]);
  return output;
}

/** Copies `node` to `binary` (stripped with `strip` when given) and injects the blob. */
export function inject({ node, binary, blobFile, strip, macho }) {
  rmSync(binary, { force: true });
  copyFileSync(node, binary);
  chmodSync(binary, 0o755);
  if (strip) quietly(strip, ['--strip-all', binary]);
  quietly(process.execPath, [
    `${root}node_modules/postject/dist/cli.js`,
    binary,
    'NODE_SEA_BLOB',
    blobFile,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    ...(macho ? ['--macho-segment-name', 'NODE_SEA'] : []),
  ]);
}
