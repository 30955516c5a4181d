// `npm run release`: a binary for every platform npm ships a Node 24 for, and SHA256SUMS. The
// linux-arm64 one runs here under qemu (a real fetch from a local HTTPS token API, --version,
// validate); the others are checked for what they are. Built once per run when missing or older
// than the sources (it takes a minute or two). Then the Dockerfile is built without a daemon
// (buildah, vfs storage, chroot isolation) for both arches, and the binary run from the image.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PINNED_NODE, ROOT, runCommand } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, provider, tokenApis } from '../helpers/integration.js';
import { AS_ROOT, BUILDAH, DEBOOTSTRAP, describeWith, QEMU_AARCH64 } from '../helpers/tools.js';

const pki = makePki();
const startApi = tokenApis();
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const RELEASE = join(ROOT, 'dist', 'release');
const PLATFORMS = ['linux-x64', 'linux-arm64', 'win-x64.exe', 'darwin-x64'];
const file = (platform: string) => join(RELEASE, `webapi-credential-${VERSION}-${platform}`);

function newestSource(): number {
  const out = execFileSync('git', ['ls-files', 'src', 'scripts', 'package.json'], { cwd: ROOT, encoding: 'utf8' });
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

describeWith(QEMU_AARCH64)('the release binaries', () => {
  beforeAll(release, 600_000);

  it('are the four platforms, each listed in SHA256SUMS, which sha256sum -c accepts', () => {
    const sums = readFileSync(join(RELEASE, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(sums.map((line) => line.split('  ')[1])).toEqual(PLATFORMS.map((p) => `webapi-credential-${VERSION}-${p}`));
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: RELEASE, encoding: 'utf8' })).toBe(PLATFORMS.map((p) => `webapi-credential-${VERSION}-${p}: OK\n`).join(''));
  });

  it('run on arm64 (under qemu): --version, validate and a real fetch', async () => {
    expect((await runArm64(['--version'])).stdout).toBe(`${VERSION}\n`);
    const api = await startApi((_request, response) => json(response, 200, { access_token: SECRET.token, expires_in: 600 }));
    // The CA travels as data: the file system under qemu is this one, but keep the run self-contained.
    const config = provider({ method: 'POST', url: `${api.url}/token`, tokenPath: '$.access_token', expiresInPath: '$.expires_in', tls: { caData: readFileSync(pki.ca.certFile, 'utf8') } });
    const validated = await runArm64(['validate', '--config-inline', config]);
    expect(validated).toEqual({ code: 0, stdout: `config from --config-inline is valid: POST ${api.url}/token\n`, stderr: '' });
    const fetched = await runArm64(['--config-inline', config]);
    expect(fetched.stderr).toBe('');
    expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
  }, 60_000);

  it('load their lazy assets on arm64 (under qemu): jose for jwt(), re2js for match()', async () => {
    let assertion = '';
    const api = await startApi((request, response) => {
      assertion = new URLSearchParams(request.body).get('client_assertion') ?? '';
      json(response, 200, { items: [{ name: 'other', token: 'nope' }, { name: 'kube-api', token: SECRET.token }], expires_in: 600 });
    });
    const config = provider({
      method: 'POST',
      url: `${api.url}/token`,
      form: { client_assertion: '{{ jwt({ iss: "arm64", aud: "test" }, "a-shared-secret-of-32-bytes-or-more!", { alg: "HS256" }) }}' },
      tokenPath: "$.items[?match(@.name, 'kube-.*')].token",
      expiresInPath: '$.expires_in',
      tls: { caData: readFileSync(pki.ca.certFile, 'utf8') },
    });
    const fetched = await runArm64(['--config-inline', config]);
    expect(fetched.stderr).toBe('');
    expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
    const [header, claims] = assertion.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect({ alg: header.alg, iss: claims.iss, aud: claims.aud }).toEqual({ alg: 'HS256', iss: 'arm64', aud: 'test' });
  }, 60_000);

  it('are the executables their platforms load, each carrying the blob', () => {
    const head = (platform: string) => readFileSync(file(platform)).subarray(0, 4);
    expect(head('linux-x64').toString('latin1')).toBe('\x7fELF');
    expect(head('linux-arm64').toString('latin1')).toBe('\x7fELF');
    expect(head('win-x64.exe').subarray(0, 2).toString('latin1')).toBe('MZ');
    expect(head('darwin-x64').readUInt32LE(0)).toBe(0xfeedfacf); // 64-bit Mach-O
    for (const platform of PLATFORMS) expect(readFileSync(file(platform)).includes('NODE_SEA_BLOB')).toBe(true);
    // macOS finds the blob in a segment of its own.
    expect(readFileSync(file('darwin-x64')).includes('NODE_SEA')).toBe(true);
  });
  // No run of the Windows binary: under Debian 12's wine 8.0, Node 24's node.exe stops as V8 starts
  // ("Fatal process out of memory: SegmentedTable::InitializeTable (subspace allocation)", with or
  // without the SEA blob), so it proves nothing here.
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
  const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

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
