// `npm run build:binary`: dist/webapi-credential, a Node Single Executable Application.
// esbuild makes one CommonJS file; the pinned Node 24 turns it into a SEA blob (with V8's code
// cache, so start-up skips compiling our code); postject injects the blob into a copy of the very
// same Node binary (the blob and the binary must come from the same Node).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = `${root}dist/sea/`;
const binary = `${root}dist/webapi-credential`;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

if (!process.version.startsWith('v24.')) {
  throw new Error(`build the binary with the pinned Node 24 (npm run build:binary), not ${process.version}`);
}

mkdirSync(out, { recursive: true });
await build({
  entryPoints: [`${root}src/main.ts`],
  outfile: `${out}cli.cjs`,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  minifyWhitespace: true,
  minifySyntax: true,
  define: { __VERSION__: JSON.stringify(version) },
  legalComments: 'none',
  logLevel: 'warning',
});

writeFileSync(
  `${out}sea-config.json`,
  JSON.stringify({
    main: `${out}cli.cjs`,
    output: `${out}sea-prep.blob`,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    useSnapshot: false,
    // A user's NODE_OPTIONS must not change (or break) the plugin.
    execArgvExtension: 'none',
  }),
);
// Both tools are chatty on success (postject warns about ELF notes it leaves alone): show their
// output only when they fail.
function quietly(args) {
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`${args[0]} failed with exit code ${result.status}`);
  }
}
quietly(['--experimental-sea-config', `${out}sea-config.json`]);

rmSync(binary, { force: true });
copyFileSync(process.execPath, binary);
chmodSync(binary, 0o755);
quietly([
  `${root}node_modules/postject/dist/cli.js`,
  binary,
  'NODE_SEA_BLOB',
  `${out}sea-prep.blob`,
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
]);
process.stderr.write(`built ${binary} (webapi-credential ${version}, ${process.version})\n`);
