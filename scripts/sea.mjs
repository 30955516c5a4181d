// What every single executable shares: the CommonJS bundles (the SEA's main script and assets), the
// SEA blob made from them by a Node of the target's exact version, and postject's injection. Used by
// build-binary.mjs (this machine's binary) and release.mjs (every platform npm ships a Node for).
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { examplesDefine } from './examples.mjs';

export const root = fileURLToPath(new URL('../', import.meta.url));
/**
 * A file as the bundles name it: relative to the checkout, so that no bundle holds the checkout's
 * path (esbuild names a module of a plugin's namespace by the path the plugin gives it, and that
 * name is a key in the bundle): two clones in two places make the same bytes.
 */
const fromRoot = (path) => relative(root, path).split(sep).join('/');
export const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

// Dependencies that neither a cached credential nor a plain fetch loads: re2js (match()/search() in
// JSONPaths) and jose (jwt()). In the executable they are SEA assets, compiled the first time a config
// needs one, so that every start does not pay for their source: with them in the main script a cached
// credential cost ~6 ms more (one bundle of 775 kB instead of 486 kB; docs/performance.md).
const LAZY = ['re2js', 'jose'];

const seaCommon = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** An import of a LAZY package, in the executable: its bundle, read from the SEA's assets when first required. */
const lazyAssets = {
  name: 'lazy-sea-assets',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^(${LAZY.join('|')})$`) }, (args) => ({
      path: args.path,
      namespace: 'sea-asset',
    }));
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

// A cached credential needs main.ts and the fast path: those are the asset fast.cjs (~50 kB), which
// the main script compiles. Every module they import lazily, with import(), and all that it loads in
// turn, is the asset full.cjs (~540 kB), compiled with node:vm on a miss (a fetch, a subcommand;
// not --version, which main.ts answers): a hit then compiles and runs 50 kB of our code instead of ~580 kB (docs/performance.md).
// The modules both have (errors.ts, the cache, the redactor...) are fast.cjs's, handed to full.cjs, so
// that there is one of each class and of each module's state. Both are wrapped as functions of
// `exports, require, module` (the SEA's require, which gives Node's built-in modules) and `__wcShared`.
const WRAPPER = ['(function (exports, require, module, __wcShared) {', '\n})'];

/** `exports` of a CommonJS module made the ES namespace `ns` (getters, so bindings stay live). */
const reexport = (ns) => `const ns = ${ns};
Object.defineProperty(exports, '__esModule', { value: true });
for (const key of Object.keys(ns)) Object.defineProperty(exports, key, { enumerable: true, get: () => ns[key] });
`;

/**
 * fast.cjs's half: each import() becomes a stub that loads full.cjs (once) and takes the module from
 * it (`lazy`: those modules); `shared` are the files whose namespaces the loader hands to full.cjs.
 */
function mainSplit(lazy, shared) {
  return {
    name: 'sea-split-main',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.split) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { split: true },
        });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        const path = fromRoot(resolved.path);
        if (!lazy.includes(path)) lazy.push(path);
        return { path, namespace: 'sea-full' };
      });
      build.onLoad({ filter: /.*/, namespace: 'sea-full' }, (args) => ({
        loader: 'js',
        resolveDir: root,
        contents: reexport(`require('sea-full-loader').full().m${lazy.indexOf(args.path)}()`),
      }));
      build.onResolve({ filter: /^sea-full-loader$/ }, () => ({ path: 'loader', namespace: 'sea-full-loader' }));
      build.onLoad({ filter: /.*/, namespace: 'sea-full-loader' }, () => ({
        loader: 'js',
        resolveDir: root,
        contents: `${shared.map((file, i) => `import * as s${i} from ${JSON.stringify(`./${file}`)};`).join('\n')}
const shared = [${shared.map((_, i) => `s${i}`).join(', ')}];
${ASSET_SCRIPT}
let loaded;
export function full() {
  if (loaded) return loaded;
  const script = assetScript(require, 'full');
  const module_ = { exports: {} };
  script.runInThisContext()(module_.exports, require, module_, shared);
  return (loaded = module_.exports);
}
`,
      }));
    },
  };
}

// How an asset is compiled: with V8's cached data of it when the SEA has that (made at build time by
// this very Node; absent for the targets that cannot have one; one V8 rejects only costs the compiling
// it would have spared). In the main script as text, and in the fast path's loader of the full one.
const ASSET_SCRIPT = `function assetScript(require, name) {
  const { getAsset } = require('node:sea');
  let cachedData;
  try {
    cachedData = Buffer.from(getAsset(name + '.cache'));
  } catch {}
  return new (require('node:vm').Script)(getAsset(name + '.cjs', 'utf8'), { filename: 'sea-asset:' + name + '.cjs', cachedData });
}`;

// The main script of the executable: the fast path's asset, compiled with its cached data. Node's own
// code cache (useCodeCache) holds only a script's top level, compiled without running it, so every
// function a hit calls would be compiled on every hit; the cached data made by a training run
// (TRAINING) holds all that the run compiled.
const MAIN = `${ASSET_SCRIPT}
assetScript(require, 'fast').runInThisContext()(exports, require, module);
`;

// The training, at build time, by the Node the executable is made of: the assets run as the executable
// runs them (their require() gives them node:sea's assets from the files, and node:vm's Script, which
// writes the cached data of each asset compiled once the process ends), on what a user runs most:
// a fetch, a fetch with --cache that stores the credential, and the hit that serves it (the config is
// not written again for it, so that it is the same). Not --version (main.ts answers it without the
// full asset) nor any other command: V8 deserialises all of an asset's cached data whenever it
// compiles the asset, so commander's functions in it cost every fetch (~5 % of its instructions).
// Each run starts from the cached data the runs before made and adds what it compiled. It answers a
// local HTTP token API of its own. argv: the JSON of {assets, caches (in and out), dir, run}.
// V8's tiers above the interpreter (Sparkplug, Maglev, Turbofan) run while an asset runs: each
// compiles a function once it has run enough, and leaves a mark on it that the cached data keeps. How
// often a function runs depends on timing (a reply's chunks, a loop that waits), so two releases made
// on a busy machine differed in four bytes of it (test/release/code-cache.test.ts). The assets run on
// the interpreter alone; the flags are V8's defaults whenever a Script is made or its data taken, as
// the flag hash a cache must match is of the flags at that moment, and a rejected cache fails the build.
const TRAINING = `const { assets, caches, dir, run } = JSON.parse(process.argv[1]);
const fs = require('node:fs');
const vm = require('node:vm');
const sea = {
  getAsset(name, encoding) {
    const file = name.endsWith('.cache') ? caches[name.slice(0, -6)] : assets[name];
    if (!file) throw new Error('no asset ' + name);
    const bytes = fs.readFileSync(file);
    return encoding ? bytes.toString(encoding) : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
  },
};
const v8 = require('node:v8');
const tiers = (on) => v8.setFlagsFromString(['sparkplug', 'maglev', 'turbofan'].map((t) => (on ? '--' : '--no-') + t).join(' '));
class Script extends vm.Script {
  constructor(source, options) {
    tiers(true);
    super(source, options);
    if (options.cachedData && this.cachedDataRejected) throw new Error('V8 rejected the cached data of ' + options.filename);
    tiers(false);
    const name = options.filename.replace(/^sea-asset:|\\.cjs$/g, '');
    process.on('exit', () => {
      tiers(true);
      fs.writeFileSync(caches[name + '.out'], this.createCachedData());
    });
  }
}
const trainingRequire = (id) => (id === 'node:sea' ? sea : id === 'node:vm' ? { ...vm, Script } : require(id));
const server = require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => response.setHeader('content-type', 'application/json').end(JSON.stringify({ access_token: 'training', expires_in: 3600 })));
});
server.listen(0, '127.0.0.1', () => {
  server.unref();
  const config = dir + '/config.yaml';
  if (run !== 'hit') fs.writeFileSync(config, ['webAPIProviderConfig:', '  method: POST', '  url: http://127.0.0.1:' + server.address().port + '/token', '  allowInsecureHTTP: true', '  form:', '    grant_type: client_credentials', '    client_secret: "{{ env.HOME }}"', '  tokenPath: $.access_token', '  expiresInPath: $.expires_in', ''].join('\\n'));
  const args = { fetch: ['--config', config], cache: ['--config', config, '--cache', '--cache-dir', dir + '/cache'] }[run === 'hit' ? 'cache' : run];
  process.argv = [process.argv[0], 'webapi-credential', ...args];
  const main = { exports: {} };
  new Function('require', 'module', 'exports', ${JSON.stringify(MAIN)})(trainingRequire, main, main.exports);
});
`;

/** full.cjs's half: a file fast.cjs has is taken from it (`__wcShared`), not bundled again. */
function assetSplit(shared) {
  return {
    name: 'sea-split-asset',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.split || args.kind === 'entry-point') return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { split: true },
        });
        if (resolved.errors.length > 0 || resolved.external || !shared.includes(fromRoot(resolved.path)))
          return undefined;
        return { path: fromRoot(resolved.path), namespace: 'sea-shared' };
      });
      build.onLoad({ filter: /.*/, namespace: 'sea-shared' }, (args) => ({
        loader: 'js',
        contents: reexport(`__wcShared[${shared.indexOf(args.path)}]`),
      }));
    },
  };
}

// The asset's exports: each module a function that evaluates it when first asked, so that `validate`
// does not evaluate the HTTP client, nor a fetch commander. A CommonJS package (yaml) is
// made the namespace an import() would give (its exports, and the whole as `default`).
const FULL_ENTRY = (lazy) => `const namespace = (m) => (m && m.__esModule ? m : Object.assign({ default: m }, m));
${lazy.map((file, i) => `exports.m${i} = () => namespace(require(${JSON.stringify(`./${file}`)}));`).join('\n')}
`;

/** The files a build read (relative to the root), without the modules the plugins above made up. */
const files = (metafile) => Object.keys(metafile.inputs).filter((input) => !/^[\w-]+:/.test(input));

/**
 * The SEA's sources for the Node line `target` (node24, or node22 for a platform npm ships no fitting
 * 24 for): `${out}cli.cjs`, the main script (MAIN); the assets `${out}fast.cjs` (main.ts and the fast
 * path), `${out}full.cjs` (the rest of the CLI) and the LAZY packages each in its own file.
 * `inputs`: every source file that went in (release.mjs names the packages they belong to in the SBOM).
 */
export async function bundle(out, target = 'node24') {
  const main = `${out}cli.cjs`;
  const define = {
    __VERSION__: JSON.stringify(version),
    __EXAMPLES__: examplesDefine(new URL('../', import.meta.url)),
  };
  const options = {
    ...seaCommon,
    target,
    metafile: true,
    absWorkingDir: root,
    define,
    banner: { js: WRAPPER[0] },
    footer: { js: WRAPPER[1] },
  };
  const assets = { 'fast.cjs': `${out}fast.cjs`, 'full.cjs': `${out}full.cjs` };
  // Twice: the first build finds the files the fast path has, the second hands them to the loader.
  const lazy = [];
  const fast = { ...options, entryPoints: [`${root}src/main.ts`], outfile: assets['fast.cjs'] };
  const first = await build({ ...fast, write: false, plugins: [lazyAssets, mainSplit(lazy, [])] });
  // In the order of their names, not in the order esbuild's parallel resolution found them: each
  // one's number is in fast.cjs and full.cjs, and a release must be the same bytes every time.
  lazy.sort();
  const shared = files(first.metafile).filter((input) => input !== 'src/main.ts');
  const built = await build({ ...fast, plugins: [lazyAssets, mainSplit(lazy, shared)] });
  const inputs = files(built.metafile);
  const full = await build({
    ...options,
    stdin: { contents: FULL_ENTRY(lazy), resolveDir: root, loader: 'js' },
    outfile: assets['full.cjs'],
    plugins: [lazyAssets, assetSplit(shared)],
  });
  inputs.push(...files(full.metafile));
  writeFileSync(main, MAIN);
  for (const name of LAZY) {
    assets[`${name}.cjs`] = `${out}${name}.cjs`;
    const asset = await build({
      ...seaCommon,
      target,
      metafile: true,
      stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root, loader: 'js' },
      outfile: assets[`${name}.cjs`],
    });
    inputs.push(...Object.keys(asset.metafile.inputs));
  }
  return { main, assets, inputs };
}

// Both tools are chatty on success (postject warns about ELF notes it leaves alone): show their
// output only when they fail. Asynchronous, so that a release makes two platforms' binaries at once.
function quietly(command, args, env = process.env, cwd = undefined) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const stream of [child.stdout, child.stderr])
      stream.setEncoding('utf8').on('data', (text) => (output += text));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      process.stderr.write(output);
      reject(new Error(`${[command, ...args].join(' ')} failed with ${signal ?? `exit code ${code}`}`));
    });
  });
}

// OpenSSL reads its config file in Node's start-up, before our first line, from OPENSSL_CONF (else
// the build's OPENSSLDIR), and loads every shared library it names (a provider's `module`, an engine's
// `dynamic_path`, found through OPENSSL_MODULES and OPENSSL_ENGINES): code of the environment's
// choosing in the plugin's process, or an abort (exit 134) for a broken one. The executable names
// its own, empty, config instead: an explicit --openssl-config overrides OPENSSL_CONF (measured with
// the SEAs of Node 24.21.0 and 22.23.2; test/integration/openssl-config.test.ts), and we need nothing
// from a config: the default provider and Node's own roots. The null device exists on every machine,
// and no user can plant a file in its place (a missing file would be skipped, but could be created).
const EMPTY_OPENSSL_CONFIG = { posix: '/dev/null', windows: 'NUL' };

/**
 * V8's code cache holds hash tables laid out by the string hash seed, which V8 draws at random for
 * each process: two builds of the same sources made different caches (103 000 of the 139 000 bytes
 * of fast.cjs's). `--hash-seed` would fix it, but V8 counts that flag in the hash of flags a cache
 * must match, so every start would reject the cache. The seed is drawn from V8's random number
 * generator, which `--random-seed` seeds and the flag hash leaves out: the cache is the same every
 * time and accepted (vm.Script's cachedDataRejected is false in a process of another seed). Only the
 * processes that make the cache run with it, never the executable.
 */
const SEEDED = ['--random-seed=1'];

/**
 * The SEA blob of `main`, made by `node` (the target's exact version: the blob format is the
 * Node's). The V8 code cache fits only that arch and that very binary: `codeCache` where they match.
 * `windows`: the target runs on Windows (the path of its null device differs).
 */
export async function blob(node, { main, assets }, output, codeCache, windows = process.platform === 'win32') {
  const config = `${output}.json`;
  if (codeCache) {
    // The assets' cached data, made by the same Node (TRAINING).
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-training-'));
    const caches = {};
    try {
      for (const run of ['fetch', 'cache', 'hit']) {
        const out = { 'fast.out': join(dir, `fast.${run}.cache`), 'full.out': join(dir, `full.${run}.cache`) };
        rmSync(out['fast.out'], { force: true });
        rmSync(out['full.out'], { force: true });
        // The builder's environment (a KUBERNETES_EXEC_INFO, a cache directory) must not steer the runs.
        await quietly(
          node,
          [...SEEDED, '-e', TRAINING, JSON.stringify({ assets, caches: { ...caches, ...out }, dir, run })],
          { PATH: process.env.PATH ?? '', HOME: dir },
        );
        // A run that never loaded the full CLI (the hit) leaves its cached data as it was.
        for (const name of ['fast', 'full']) {
          if (!existsSync(out[`${name}.out`])) continue;
          caches[name] = `${output}.${name}.cache`;
          copyFileSync(out[`${name}.out`], caches[name]);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assets = { ...assets, 'fast.cache': caches.fast, 'full.cache': caches.full };
  }
  // The blob keeps the main script's path as given (its name in stack traces): given relative to the
  // directory the maker runs in, as every path here is, no checkout path is in it.
  const here = dirname(output);
  const local = (path) => relative(here, path);
  writeFileSync(
    config,
    JSON.stringify({
      main: local(main),
      output: local(output),
      assets: Object.fromEntries(Object.entries(assets).map(([name, path]) => [name, local(path)])),
      disableExperimentalSEAWarning: true,
      useCodeCache: codeCache,
      useSnapshot: false,
      // A user's NODE_OPTIONS must not change (or break) the plugin.
      execArgvExtension: 'none',
      execArgv: [`--openssl-config=${windows ? EMPTY_OPENSSL_CONFIG.windows : EMPTY_OPENSSL_CONFIG.posix}`],
    }),
  );
  await quietly(node, [...SEEDED, '--experimental-sea-config', local(config)], process.env, here);
  return output;
}

/** Copies `node` to `binary` (stripped with `strip` when given) and injects the blob. */
export async function inject({ node, binary, blobFile, strip, macho }) {
  rmSync(binary, { force: true });
  copyFileSync(node, binary);
  chmodSync(binary, 0o755);
  if (strip) await quietly(strip, ['--strip-all', binary]);
  await quietly(process.execPath, [
    `${root}node_modules/postject/dist/cli.js`,
    binary,
    'NODE_SEA_BLOB',
    blobFile,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    ...(macho ? ['--macho-segment-name', 'NODE_SEA'] : []),
  ]);
}
