// `npm run release`: a binary for linux-x64, linux-arm64, win-x64, win-arm64, darwin-x64 and
// darwin-arm64, the npm tarball, the SBOM, the Homebrew formula, the Scoop manifest and SHA256SUMS.
// The linux-arm64 binary runs here under qemu and the win-x64 one under Wine (each: --version,
// validate, a real fetch from a local HTTPS token API, jwt() and match()); the others are checked for
// what they are, and the blob of every Node version runs in a linux-x64 Node of that version. Built
// once per run when missing or older than the sources (a few minutes). Then the Dockerfile is built
// without a daemon (buildah, vfs storage, chroot isolation) for both arches, and the binary run from
// the image.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliResult, PINNED_NODE, ROOT, runCommand } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json, type TokenApi } from '../helpers/token-api.js';
import { SECRET, provider, tokenApis } from '../helpers/integration.js';
import { AS_ROOT, BUILDAH, DEBOOTSTRAP, describeWith, QEMU_AARCH64, WINE_ROOT } from '../helpers/tools.js';

const pki = makePki();
const startApi = tokenApis();
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; repository: { url: string } };
const VERSION = PACKAGE.version;
const RELEASE = join(ROOT, 'dist', 'release');
const PLATFORMS = ['linux-x64', 'linux-arm64', 'win-x64', 'win-arm64', 'darwin-x64', 'darwin-arm64'];
const binaryName = (platform: string) => `webapi-credential-${VERSION}-${platform}${platform.startsWith('win-') ? '.exe' : ''}`;
const file = (platform: string) => join(RELEASE, binaryName(platform));
/** Every file a release publishes but SHA256SUMS (the workflow uploads dist/release/* as it is). */
const FILES = [...PLATFORMS.map(binaryName), `webapi-credential-${VERSION}.cdx.json`, `webapi-credential-${VERSION}.tgz`, 'webapi-credential.json', 'webapi-credential.rb'].sort();
const REPOSITORY = PACKAGE.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const download = (platform: string) => `${REPOSITORY}/releases/download/v${VERSION}/${binaryName(platform)}`;
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const caData = () => readFileSync(pki.ca.certFile, 'utf8');

function newestSource(): number {
  const out = execFileSync('git', ['ls-files', 'src', 'scripts', 'package.json', 'package-lock.json'], { cwd: ROOT, encoding: 'utf8' });
  return Math.max(...out.trim().split('\n').map((path) => (existsSync(join(ROOT, path)) ? statSync(join(ROOT, path)).mtimeMs : 0)));
}

function runArm64(args: string[], env: Record<string, string> = {}) {
  return runCommand(QEMU_AARCH64.path!, ['-L', '/usr/aarch64-linux-gnu', file('linux-arm64'), ...args], { PATH: '/usr/bin:/bin', ...env });
}

/** dist/release/, built unless it is newer than the sources. */
function release() {
  const sums = join(RELEASE, 'SHA256SUMS');
  if (!existsSync(sums) || statSync(sums).mtimeMs < newestSource()) {
    execFileSync(PINNED_NODE, [join(ROOT, 'scripts', 'release.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
}

/** A token API answering a list whose one item match() picks, and keeping the client assertion jwt() made. */
async function jwtAndMatchApi(): Promise<{ api: TokenApi; config: string; assertion: () => string }> {
  let assertion = '';
  const api = await startApi((request, response) => {
    assertion = new URLSearchParams(request.body).get('client_assertion') ?? '';
    json(response, 200, { items: [{ name: 'other', token: 'nope' }, { name: 'kube-api', token: SECRET.token }], expires_in: 600 });
  });
  const config = provider({
    method: 'POST',
    url: `${api.url}/token`,
    form: { client_assertion: '{{ jwt({ iss: "release", aud: "test" }, "a-shared-secret-of-32-bytes-or-more!", { alg: "HS256" }) }}' },
    tokenPath: "$.items[?match(@.name, 'kube-.*')].token",
    expiresInPath: '$.expires_in',
    // The CA travels as data: the run stays self-contained under qemu and in Wine's root.
    tls: { caData: caData() },
  });
  return { api, config, assertion: () => assertion };
}

/** The credential came from the API through match(), and the request carried an HS256 JWT jwt() signed. */
function expectJwtAndMatch(fetched: CliResult, assertion: string) {
  expect(fetched.stderr).toBe('');
  expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
  const [header, claims] = assertion.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  expect({ alg: header.alg, iss: claims.iss, aud: claims.aud }).toEqual({ alg: 'HS256', iss: 'release', aud: 'test' });
}

async function plainFetchConfig(): Promise<{ api: TokenApi; config: string }> {
  const api = await startApi((_request, response) => json(response, 200, { access_token: SECRET.token, expires_in: 600 }));
  return { api, config: provider({ method: 'POST', url: `${api.url}/token`, tokenPath: '$.access_token', expiresInPath: '$.expires_in', tls: { caData: caData() } }) };
}

// NODE_OPTIONS that would stop any Node that honoured it.
const HOSTILE_NODE_OPTIONS = '--require /nonexistent/webapi-credential-preload.js';

interface MachO {
  cputype: number;
  segments: Record<string, string[]>;
  signed: boolean;
}

/** The header and load commands of a 64-bit little-endian Mach-O: its CPU, segments (with their sections) and whether it carries a code signature. */
function machO(path: string): MachO {
  const data = readFileSync(path);
  expect(data.readUInt32LE(0)).toBe(0xfeedfacf);
  const name = (at: number) => data.subarray(at, at + 16).toString('latin1').replace(/\0+$/, '');
  const result: MachO = { cputype: data.readUInt32LE(4), segments: {}, signed: false };
  let at = 32;
  for (let i = 0; i < data.readUInt32LE(16); i++) {
    const [cmd, size] = [data.readUInt32LE(at), data.readUInt32LE(at + 4)];
    if (cmd === 0x19) {
      // LC_SEGMENT_64: segname at 8, nsects at 64, then 80-byte sections (sectname first).
      result.segments[name(at + 8)] = Array.from({ length: data.readUInt32LE(at + 64) }, (_, s) => name(at + 72 + s * 80));
    }
    if (cmd === 0x1d) result.signed = true; // LC_CODE_SIGNATURE
    at += size;
  }
  return result;
}

/** The machine field of a PE's COFF header. */
function peMachine(path: string): number {
  const data = readFileSync(path);
  expect(data.subarray(0, 2).toString('latin1')).toBe('MZ');
  const pe = data.readUInt32LE(0x3c);
  expect(data.subarray(pe, pe + 4).toString('latin1')).toBe('PE\0\0');
  return data.readUInt16LE(pe + 4);
}

interface Target {
  platform: string;
  node: string;
  maker: string;
  blob: string;
  codeCache: boolean;
}

describeWith(QEMU_AARCH64)('the release binaries', () => {
  beforeAll(release, 900_000);
  const targets = () => JSON.parse(readFileSync(join(ROOT, 'dist', 'release-nodes', 'targets.json'), 'utf8')) as Target[];

  it('are every file a release publishes, each listed in SHA256SUMS, which sha256sum -c accepts', () => {
    expect(readdirSync(RELEASE).sort()).toEqual([...FILES, 'SHA256SUMS'].sort());
    const sums = readFileSync(join(RELEASE, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(sums.map((line) => line.split('  ')[1])).toEqual(FILES);
    for (const line of sums) expect(line.split('  ')[0]).toBe(sha256(join(RELEASE, line.split('  ')[1]!)));
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: RELEASE, encoding: 'utf8' })).toBe(FILES.map((name) => `${name}: OK\n`).join(''));
  });

  it('run on arm64 (under qemu): --version, validate and a real fetch', async () => {
    expect((await runArm64(['--version'])).stdout).toBe(`${VERSION}\n`);
    const { api, config } = await plainFetchConfig();
    const validated = await runArm64(['validate', '--config-inline', config]);
    expect(validated).toEqual({ code: 0, stdout: `config from --config-inline is valid: POST ${api.url}/token\n`, stderr: '' });
    const fetched = await runArm64(['--config-inline', config]);
    expect(fetched.stderr).toBe('');
    expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
  }, 60_000);

  it('load their lazy assets on arm64 (under qemu): jose for jwt(), re2js for match()', async () => {
    const { config, assertion } = await jwtAndMatchApi();
    expectJwtAndMatch(await runArm64(['--config-inline', config]), assertion());
  }, 60_000);

  it('are the executables their platforms load, each carrying the blob', () => {
    expect(readFileSync(file('linux-x64')).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(readFileSync(file('linux-arm64')).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(peMachine(file('win-x64'))).toBe(0x8664); // IMAGE_FILE_MACHINE_AMD64
    expect(peMachine(file('win-arm64'))).toBe(0xaa64); // IMAGE_FILE_MACHINE_ARM64
    for (const platform of PLATFORMS) expect(readFileSync(file(platform)).includes('NODE_SEA_BLOB')).toBe(true);
  });

  it('are Mach-Os of their CPU with the blob in a NODE_SEA segment, unsigned (codesign --sign - before they run)', () => {
    const CPU_TYPE_X86_64 = 0x01000007;
    const CPU_TYPE_ARM64 = 0x0100000c;
    for (const [platform, cputype] of [['darwin-x64', CPU_TYPE_X86_64], ['darwin-arm64', CPU_TYPE_ARM64]] as const) {
      const macho = machO(file(platform));
      expect(macho.cputype).toBe(cputype);
      expect(macho.segments['NODE_SEA']).toEqual(['__NODE_SEA_BLOB']);
      // Injection dropped Node's signature: macOS on Apple silicon runs no unsigned code, hence
      // the ad hoc signature the formula makes and the README names.
      expect(macho.signed).toBe(false);
    }
  });

  it('are made of a Node that keeps the NODE_OPTIONS promise, newest first: the pinned one, else the newest that does', () => {
    const nodes = Object.fromEntries(targets().map((target) => [target.platform, target.node]));
    expect(nodes['linux-x64']).toBe(process.versions.node);
    // npm ships no Node 24 for arm64 Windows, and for Apple silicon only 24.0.0, older than
    // execArgvExtension (24.7.0): both are made of the newest 22 that npm ships for them.
    expect(nodes['win-arm64']).toMatch(/^22\./);
    expect(nodes['darwin-arm64']).toMatch(/^22\./);
    expect(targets().filter((target) => target.codeCache).map((target) => target.platform)).toEqual(['linux-x64']);
  });

  it('ignore NODE_OPTIONS and run jwt() and match(): the blob of each Node version, in the linux-x64 Node of that version', async () => {
    const work = mkdtempSync(join(tmpdir(), 'webapi-credential-blob-'));
    try {
      const seen = new Set<string>();
      for (const target of targets()) {
        if (seen.has(target.node)) continue;
        seen.add(target.node);
        const binary = join(work, `webapi-credential-node-${target.node}`);
        if (target.platform === 'linux-x64') {
          copyFileSync(file('linux-x64'), binary);
        } else {
          copyFileSync(target.maker, binary);
          chmodSync(binary, 0o755);
          execFileSync(PINNED_NODE, [join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js'), binary, 'NODE_SEA_BLOB', target.blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'ignore' });
        }
        const run = await runCommand(binary, ['--version'], { PATH: '/usr/bin:/bin', NODE_OPTIONS: HOSTILE_NODE_OPTIONS });
        expect({ node: target.node, ...run }).toEqual({ node: target.node, code: 0, stdout: `${VERSION}\n`, stderr: '' });
        const { config, assertion } = await jwtAndMatchApi();
        expectJwtAndMatch(await runCommand(binary, ['--config-inline', config], { PATH: '/usr/bin:/bin' }), assertion());
        rmSync(binary);
      }
      expect(seen.size).toBeGreaterThan(1);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 240_000);

  it('hold a Homebrew formula: both darwin binaries of the GitHub release of the tag, with their checksums, signed on install, tested by --version', () => {
    const formula = readFileSync(join(RELEASE, 'webapi-credential.rb'), 'utf8');
    const block = (name: string) => formula.match(new RegExp(`on_${name} do\\n\\s*url "([^"]+)"\\n\\s*sha256 "([0-9a-f]{64})"\\n\\s*end`))?.slice(1);
    expect(block('arm')).toEqual([download('darwin-arm64'), sha256(file('darwin-arm64'))]);
    expect(block('intel')).toEqual([download('darwin-x64'), sha256(file('darwin-x64'))]);
    expect(formula).toContain('class WebapiCredential < Formula');
    expect(formula).toContain(`version "${VERSION}"`);
    // What brew audit asks of a description: no leading article, at most 80 characters.
    expect(formula).toContain('desc "Generic Kubernetes client-go exec credential plugin"');
    expect(formula).toContain('system "codesign", "--sign", "-", "--force", binary');
    expect(formula).toMatch(/test do\n\s*assert_equal version\.to_s, shell_output\("#\{bin\}\/webapi-credential --version"\)\.strip\n\s*end/);
    expect(REPOSITORY).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
  });

  it('hold a Scoop manifest: the win-x64 and win-arm64 binaries of the GitHub release of the tag, with their hashes', () => {
    const manifest = JSON.parse(readFileSync(join(RELEASE, 'webapi-credential.json'), 'utf8'));
    expect(manifest).toMatchObject({
      version: VERSION,
      bin: 'webapi-credential.exe',
      architecture: {
        '64bit': { url: `${download('win-x64')}#/webapi-credential.exe`, hash: sha256(file('win-x64')) },
        arm64: { url: `${download('win-arm64')}#/webapi-credential.exe`, hash: sha256(file('win-arm64')) },
      },
    });
  });

  it('hold a CycloneDX SBOM naming exactly the packages the binaries bundle, at their locked versions', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string; dependencies?: Record<string, string> }> };
    // What src/ imports by name, and what those need in turn: what esbuild has to put in the bundle.
    const imported = new Set(
      execFileSync('git', ['grep', '-hoE', String.raw`(from|import\() ?'[^.'][^']*'`, '--', 'src'], { cwd: ROOT, encoding: 'utf8' })
        .split('\n')
        .map((line) => line.match(/'([^']+)'/)?.[1])
        .filter((name): name is string => name !== undefined && !name.startsWith('node:')),
    );
    const expected = new Set<string>();
    const visit = (name: string) => {
      const locked = lock.packages[`node_modules/${name}`]!;
      if (expected.has(`${name}@${locked.version}`)) return;
      expected.add(`${name}@${locked.version}`);
      for (const dependency of Object.keys(locked.dependencies ?? {})) visit(dependency);
    };
    for (const name of imported) visit(name);
    expect([...imported].sort()).toEqual(['@jsep-plugin/object', 'commander', 'jose', 'jsep', 'json-p3', 're2js', 'yaml']);

    const sbom = JSON.parse(readFileSync(join(RELEASE, `webapi-credential-${VERSION}.cdx.json`), 'utf8'));
    expect({ format: sbom.bomFormat, spec: sbom.specVersion, name: sbom.metadata.component.name, version: sbom.metadata.component.version }).toEqual({
      format: 'CycloneDX',
      spec: '1.6',
      name: 'webapi-credential',
      version: VERSION,
    });
    const components = (sbom.components as { group?: string; name: string; version: string; purl: string }[]).map((c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`);
    expect(components.sort()).toEqual([...expected].sort());
    for (const component of sbom.components) {
      expect(component.purl).toMatch(/^pkg:npm\//);
      // Bundled, so part of what runs: not flagged as a development package (cyclonedx-npm's mark for devDependencies).
      expect(component.properties ?? []).not.toContainEqual(expect.objectContaining({ name: 'cdx:npm:package:development' }));
    }
  });
});

/** Runs the win-x64 binary with Wine in WINE_ROOT (a mount namespace of its own: /dev, /sys and dist/release bound in). Wine's pipes are not what Node expects (stdout over a pipe fails with EBADF): stdout and stderr go to files. */
async function runWine(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const root = WINE_ROOT.path!;
  const script = `R=$1; release=$2; shift 2
mount --rbind /dev "$R/dev" && mount --rbind /sys "$R/sys" && mount --bind "$release" "$R/mnt/release" || exit 125
exec chroot "$R" /usr/bin/env -i HOME=/root XDG_RUNTIME_DIR=/run/user/0 WINEDEBUG=-all PATH=/usr/bin:/bin "$@"`;
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-wine-'));
  const [out, err] = [openSync(join(dir, 'stdout'), 'w'), openSync(join(dir, 'stderr'), 'w')];
  try {
    const command = [...Object.entries(env).map(([name, value]) => `${name}=${value}`), '/usr/lib/wine/wine64', `/mnt/release/${binaryName('win-x64')}`, ...args];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('unshare', ['--mount', '--pid', '--fork', `--mount-proc=${root}/proc`, 'sh', '-c', script, 'sh', root, RELEASE, ...command], { stdio: ['ignore', out, err] });
      child.on('error', reject);
      child.on('close', resolve);
    });
    return { code, stdout: readFileSync(join(dir, 'stdout'), 'utf8'), stderr: readFileSync(join(dir, 'stderr'), 'utf8') };
  } finally {
    closeSync(out);
    closeSync(err);
    rmSync(dir, { recursive: true, force: true });
  }
}

describeWith(WINE_ROOT, AS_ROOT)('the win-x64 binary under Wine 10 (a Debian 13 root)', () => {
  beforeAll(release, 900_000);

  it('answers --version, NODE_OPTIONS ignored', async () => {
    expect(await runWine(['--version'], { NODE_OPTIONS: HOSTILE_NODE_OPTIONS })).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  }, 60_000);

  it('validates a config and fetches a credential from a local HTTPS token API', async () => {
    const { api, config } = await plainFetchConfig();
    expect(await runWine(['validate', '--config-inline', config])).toEqual({ code: 0, stdout: `config from --config-inline is valid: POST ${api.url}/token\n`, stderr: '' });
    const fetched = await runWine(['--config-inline', config]);
    expect(fetched.stderr).toBe('');
    expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
  }, 60_000);

  it('loads its lazy assets: jose for jwt(), re2js for match()', async () => {
    const { config, assertion } = await jwtAndMatchApi();
    expectJwtAndMatch(await runWine(['--config-inline', config]), assertion());
  }, 60_000);
});

describeWith(QEMU_AARCH64, BUILDAH, DEBOOTSTRAP, AS_ROOT)('the image of the release binaries', () => {
  // Storage of its own under dist/, kept between runs: the base is made once.
  const storage = join(ROOT, 'dist', 'image-storage');
  const inStorage = ['--root', join(storage, 'root'), '--runroot', join(storage, 'run'), '--storage-driver', 'vfs'];
  const BASE = 'docker.io/library/debian:12-slim';
  const buildah = (...args: string[]) =>
    execFileSync(BUILDAH.path!, [...inStorage, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    }).trim();
  const containers: string[] = [];
  /** A working container of `image`, mounted: its root directory here. */
  const mounted = (image: string) => {
    const container = buildah('from', '--quiet', '--pull-never', image);
    containers.push(container);
    return { container, root: buildah('mount', container) };
  };
  beforeAll(() => {
    release();
    // No container registry is reachable here, only Debian's mirror: the base FROM names is
    // bookworm's minbase from debootstrap, stored under that name (Dockerfile unchanged).
    if (spawnSync(BUILDAH.path!, [...inStorage, 'images', '--quiet', BASE]).status !== 0) {
      const rootfs = mkdtempSync(join(tmpdir(), 'webapi-credential-rootfs-'));
      try {
        execFileSync(DEBOOTSTRAP.path!, ['--variant=minbase', 'bookworm', rootfs, 'http://deb.debian.org/debian'], { stdio: ['ignore', 'ignore', 'pipe'] });
        const base = buildah('from', 'scratch');
        execFileSync('cp', ['-a', `${rootfs}/.`, `${buildah('mount', base)}/`]);
        buildah('umount', base);
        buildah('commit', '--quiet', '--rm', base, BASE);
      } finally {
        rmSync(rootfs, { recursive: true, force: true });
      }
    }
    for (const arch of ['amd64', 'arm64']) {
      buildah('bud', '--quiet', '--isolation', 'chroot', '--pull-never', '--build-arg', `TARGETARCH=${arch}`, '--tag', `webapi-credential:test-${arch}`, '.');
    }
  }, 600_000);

  afterAll(() => {
    for (const container of containers) buildah('rm', container);
  });

  it('amd64: runs --version from the image, as user 65532, the release binary unchanged', () => {
    const image = mounted('webapi-credential:test-amd64');
    expect(buildah('run', '--isolation', 'chroot', image.container, '--', '/usr/local/bin/webapi-credential', '--version')).toBe(VERSION);
    expect(buildah('inspect', '--type', 'image', '--format', '{{.OCIv1.Config.User}} {{.OCIv1.Config.Entrypoint}}', 'webapi-credential:test-amd64')).toBe(
      '65532:65532 [/usr/local/bin/webapi-credential]',
    );
    expect(sha256(join(image.root, 'usr/local/bin/webapi-credential'))).toBe(sha256(file('linux-x64')));
  });

  it('arm64: the image holds the linux-arm64 binary, which runs --version (under qemu)', async () => {
    const image = mounted('webapi-credential:test-arm64');
    const binary = join(image.root, 'usr/local/bin/webapi-credential');
    expect(sha256(binary)).toBe(sha256(file('linux-arm64')));
    const run = await runCommand(QEMU_AARCH64.path!, ['-L', '/usr/aarch64-linux-gnu', binary, '--version'], { PATH: '/usr/bin:/bin' });
    expect(run).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });
});
