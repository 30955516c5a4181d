// What every single executable shares: the one-file CommonJS bundle, the SEA blob made from it by a
// Node of the target's exact version, and postject's injection. Used by build-binary.mjs (this
// machine's binary) and release.mjs (every platform npm ships a Node for).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../', import.meta.url));
export const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

/** dist/sea/cli.cjs: the CLI in one CommonJS file. */
export async function bundle(out) {
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
  return `${out}cli.cjs`;
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
export function blob(node, main, output, codeCache) {
  const config = `${output}.json`;
  writeFileSync(
    config,
    JSON.stringify({
      main,
      output,
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
