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

// The executable's main script is what a cached credential needs: main.ts and the fast path. Every
// module main.ts (or a module the fast path loads) imports lazily, with import(), and all that it
// loads in turn, is one SEA asset, full.cjs, compiled with node:vm on a miss (a fetch, a subcommand,
// --version): a hit then compiles and loads 30 kB of our code instead of ~500 kB, which cost it ~6 %
// of its CPU (docs/performance.md). The modules both have (errors.ts, the cache, the redactor...) are
// the main script's, handed to the asset, so that there is one of each class and of each module's state.
const FULL_WRAPPER = ['(function (exports, require, module, __wcShared) {', '\n})'];

/** `exports` of a CommonJS module made the ES namespace `ns` (getters, so bindings stay live). */
const reexport = (ns) => `const ns = ${ns};
Object.defineProperty(exports, '__esModule', { value: true });
for (const key of Object.keys(ns)) Object.defineProperty(exports, key, { enumerable: true, get: () => ns[key] });
`;

/**
 * The main script's half: each import() becomes a stub that loads the asset (once) and takes the
 * module from it; `shared` are the files whose namespaces the loader hands to the asset.
 */
function mainSplit(lazy, shared, training = false) {
  // The asset's text and its code cache: from the SEA, or in the training build (below) from the files
  // the training entry names, with the cache written back when that process ends.
  const assets = training
    ? `const { readFileSync, writeFileSync } = require('node:fs');
  const { asset, cacheIn, cacheOut } = globalThis.__wcTraining;
  const source = readFileSync(asset, 'utf8');
  const cachedData = cacheIn ? readFileSync(cacheIn) : undefined;`
    : `const { getAsset } = require('node:sea');
  const source = getAsset('full.cjs', 'utf8');
  // V8's code cache of the asset, made at build time by this very Node; absent for the targets that
  // cannot have one, and one V8 rejects (another build) only costs the compiling it would have spared.
  let cachedData;
  try {
    cachedData = Buffer.from(getAsset('full.cache'));
  } catch {}`;
  return {
    name: 'sea-split-main',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.split) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { split: true } });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        if (!lazy.includes(resolved.path)) lazy.push(resolved.path);
        return { path: resolved.path, namespace: 'sea-full' };
      });
      build.onLoad({ filter: /.*/, namespace: 'sea-full' }, (args) => ({ loader: 'js', resolveDir: root, contents: reexport(`require('sea-full-loader').full().m${lazy.indexOf(args.path)}()`) }));
      build.onResolve({ filter: /^sea-full-loader$/ }, () => ({ path: 'loader', namespace: 'sea-full-loader' }));
      build.onLoad({ filter: /.*/, namespace: 'sea-full-loader' }, () => ({
        loader: 'js',
        resolveDir: root,
        contents: `${shared.map((file, i) => `import * as s${i} from ${JSON.stringify(file)};`).join('\n')}
const shared = [${shared.map((_, i) => `s${i}`).join(', ')}];
let loaded;
export function full() {
  if (loaded) return loaded;
  ${assets}
  const { Script } = require('node:vm');
  const script = new Script(source, { filename: 'sea-asset:full.cjs', cachedData });
  const module_ = { exports: {} };
  script.runInThisContext()(module_.exports, require, module_, shared);
  ${training ? "process.on('exit', () => writeFileSync(cacheOut, script.createCachedData()));" : ''}
  return (loaded = module_.exports);
}
`,
      }));
    },
  };
}

// The training build: the main script run by plain Node at build time, taking the asset from a file,
// on what a user runs most (a fetch, with the cache and without; --version); V8's cached data made
// after that holds the functions those runs compiled, not only the asset's top level (which is all a
// cache made without running it has: a fetch then cost ~5 % more CPU, --version ~40 %). It answers
// a local HTTP token API of its own; nothing of it ships.
const TRAINING_ENTRY = `const [asset, cacheIn, cacheOut, run] = process.argv.slice(2);
globalThis.__wcTraining = { asset, cacheIn: cacheIn === '-' ? undefined : cacheIn, cacheOut };
const { mkdtempSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const dir = mkdtempSync(require('node:path').join(tmpdir(), 'webapi-credential-training-'));
const server = require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => response.setHeader('content-type', 'application/json').end(JSON.stringify({ access_token: 'training', expires_in: 3600 })));
});
server.listen(0, '127.0.0.1', () => {
  server.unref();
  const url = 'http://127.0.0.1:' + server.address().port + '/token';
  writeFileSync(dir + '/config.yaml', 'webAPIProviderConfig:\\n  method: POST\\n  url: ' + url + '\\n  allowInsecureHTTP: true\\n  form:\\n    grant_type: client_credentials\\n    client_secret: "{{ env.HOME }}"\\n  tokenPath: $.access_token\\n  expiresInPath: $.expires_in\\n');
  const args = { version: ['--version'], fetch: ['--config', dir + '/config.yaml'], cache: ['--config', dir + '/config.yaml', '--cache', '--cache-dir', dir + '/cache'] }[run];
  process.argv = [process.argv[0], 'webapi-credential', ...args];
  process.on('exit', () => require('node:fs').rmSync(dir, { recursive: true, force: true }));
  require(${JSON.stringify(`${root}src/main.ts`)});
});
`;

/** The asset's half: a file the main script has is taken from it (`__wcShared`), not bundled again. */
function assetSplit(shared) {
  return {
    name: 'sea-split-asset',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.split || args.kind === 'entry-point') return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { split: true } });
        if (resolved.errors.length > 0 || resolved.external || !shared.includes(resolved.path)) return undefined;
        return { path: resolved.path, namespace: 'sea-shared' };
      });
      build.onLoad({ filter: /.*/, namespace: 'sea-shared' }, (args) => ({ loader: 'js', contents: reexport(`__wcShared[${shared.indexOf(args.path)}]`) }));
    },
  };
}

// The asset's exports: each module a function that evaluates it when first asked, so that --version
// does not evaluate yaml and the HTTP client, nor a fetch commander. A CommonJS package (yaml) is
// made the namespace an import() would give (its exports, and the whole as `default`).
const FULL_ENTRY = (lazy) => `const namespace = (m) => (m && m.__esModule ? m : Object.assign({ default: m }, m));
${lazy.map((file, i) => `exports.m${i} = () => namespace(require(${JSON.stringify(file)}));`).join('\n')}
`;

/**
 * `${out}cli.cjs`: the main script (main.ts and the fast path, in one CommonJS file); `${out}full.cjs`,
 * the rest of the CLI, and the LAZY packages each in its own file (the SEA's assets), for the Node
 * line `target` (node24, or node22 for a platform npm ships no fitting 24 for).
 * `inputs`: every source file that went in (release.mjs names the packages they belong to in the SBOM).
 */
export async function bundle(out, target = 'node24') {
  const main = `${out}cli.cjs`;
  const define = { __VERSION__: JSON.stringify(version), __EXAMPLES__: examplesDefine(new URL('../', import.meta.url)) };
  const options = { ...seaCommon, target, metafile: true, absWorkingDir: root, define };
  // Twice: the first build finds the files the main script has, the second hands them to the loader.
  const lazy = [];
  const first = await build({ ...options, entryPoints: [`${root}src/main.ts`], outfile: main, write: false, plugins: [lazyAssets, mainSplit(lazy, [])] });
  const shared = Object.keys(first.metafile.inputs)
    .filter((input) => !/^[\w-]+:/.test(input) && input !== 'src/main.ts')
    .map((input) => `${root}${input}`);
  const built = await build({ ...options, entryPoints: [`${root}src/main.ts`], outfile: main, plugins: [lazyAssets, mainSplit(lazy, shared)] });
  const training = `${out}training.cjs`;
  await build({ ...options, stdin: { contents: TRAINING_ENTRY, resolveDir: root, loader: 'js' }, outfile: training, plugins: [lazyAssets, mainSplit(lazy, shared, true)] });
  const inputs = Object.keys(built.metafile.inputs);
  const assets = { 'full.cjs': `${out}full.cjs` };
  const full = await build({
    ...options,
    stdin: { contents: FULL_ENTRY(lazy), resolveDir: root, loader: 'js' },
    outfile: assets['full.cjs'],
    banner: { js: FULL_WRAPPER[0] },
    footer: { js: FULL_WRAPPER[1] },
    plugins: [lazyAssets, assetSplit(shared)],
  });
  inputs.push(...Object.keys(full.metafile.inputs));
  for (const name of LAZY) {
    assets[`${name}.cjs`] = `${out}${name}.cjs`;
    const asset = await build({ ...seaCommon, target, metafile: true, stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root, loader: 'js' }, outfile: assets[`${name}.cjs`] });
    inputs.push(...Object.keys(asset.metafile.inputs));
  }
  return { main, assets, inputs, training };
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
export function blob(node, { main, assets, training }, output, codeCache) {
  const config = `${output}.json`;
  if (codeCache) {
    // The asset's code cache too, made by the same Node (useCodeCache covers only the main script):
    // each training run starts from the cache the one before made, and adds what it compiled.
    let cache = '-';
    for (const run of ['version', 'fetch', 'cache']) {
      const next = `${output}.full.cache.${run}`;
      quietly(node, [training, assets['full.cjs'], cache, next, run]);
      cache = next;
    }
    assets = { ...assets, 'full.cache': cache };
  }
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
