// `npm run build:binary`: dist/webapi-credential, a Node Single Executable Application of this
// machine's platform. esbuild makes the CommonJS bundles (scripts/sea.mjs); the pinned Node 24 turns
// them into a SEA blob with V8's cached data of our code, made by that Node (start-up skips compiling
// it); postject injects the blob into a copy of that very Node binary (the blob and the binary must
// come from the same Node).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { blob, bundle, inject, root, version } from './sea.mjs';

if (!process.version.startsWith('v24.')) {
  throw new Error(`build the binary with the pinned Node 24 (npm run build:binary), not ${process.version}`);
}

const out = `${root}dist/sea/`;
const binary = `${root}dist/webapi-credential`;
mkdirSync(out, { recursive: true });
const sources = await bundle(out);
// Stripped: the symbols are a sixth of the binary and nothing at run time reads them (docs/release.md).
const strip = spawnSync('sh', ['-c', 'command -v strip']).status === 0 ? 'strip' : undefined;
await inject({
  node: process.execPath,
  binary,
  blobFile: await blob(process.execPath, sources, `${out}sea-prep.blob`, true),
  strip,
});
process.stderr.write(`built ${binary} (webapi-credential ${version}, ${process.version})\n`);
