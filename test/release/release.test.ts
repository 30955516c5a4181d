// `npm run release`: a binary for linux-x64, linux-arm64, win-x64, win-arm64, darwin-x64 and
// darwin-arm64, the npm tarball, the SBOM, the Homebrew formula, the Scoop manifest and SHA256SUMS.
// The darwin binaries are signed ad hoc, and verify page by page with a reader of the format
// (test/helpers/macho-signature.ts); the Windows ones are unsigned and whole for osslsigncode; the
// archives hold each binary, LICENSE, README.md and THIRD-PARTY-NOTICES. Released again from another
// checkout path, every file is the same byte for byte.
// The linux-arm64 binary runs here under qemu and the win-x64 one under Wine (each: --version,
// validate, a real fetch from a local HTTPS token API, jwt() and match()); the others are checked for
// what they are, and the blob of every Node version runs in a linux-x64 Node of that version. Built
// once per run when missing or older than the sources (a few minutes). Then the Dockerfile is built
// without a daemon (buildah, vfs storage, chroot isolation) for both arches, and the binary run from
// the image.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { type CliResult, PINNED_NODE, ROOT, runCommand } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json, type TokenApi } from '../helpers/token-api.js';
import { SECRET, provider, tokenApis } from '../helpers/integration.js';
import {
  AS_ROOT,
  BUILDAH,
  DEBOOTSTRAP,
  describeWith,
  OSSLSIGNCODE,
  QEMU_AARCH64,
  WINE_ROOT,
} from '../helpers/tools.js';
import { readSignature, verifySignature } from '../helpers/macho-signature.js';
import { osslVerify, UNSIGNED } from '../helpers/pe.js';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { formula as formulaText, leastMacos } from '../../scripts/formula.mjs';

// Each test here reads, unpacks or runs six ~100 MB binaries: on a busy 2-core machine a sync test
// that lists and hashes every archive took over 30 s. The default only ends a hang; give it room.
vi.setConfig({ testTimeout: 300_000 });

const pki = makePki();
const startApi = tokenApis();
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  repository: { url: string };
};
const VERSION = PACKAGE.version;
/** `--version`: this version and the Node the binary carries, on the platform it was built for. */
const VERSION_LINE = new RegExp(
  `^webapi-credential ${VERSION.replaceAll('.', '\\.')} \\(node v\\d+\\.\\d+\\.\\d+, [a-z0-9]+-[a-z0-9]+\\)\\n?$`,
);
const RELEASE = join(ROOT, 'dist', 'release');
const PLATFORMS = ['linux-x64', 'linux-arm64', 'win-x64', 'win-arm64', 'darwin-x64', 'darwin-arm64'];
const binaryName = (platform: string) =>
  `webapi-credential-${VERSION}-${platform}${platform.startsWith('win-') ? '.exe' : ''}`;
const archiveName = (platform: string) =>
  `webapi-credential-${VERSION}-${platform}${platform.startsWith('win-') ? '.zip' : '.tar.gz'}`;
const file = (platform: string) => join(RELEASE, binaryName(platform));
const archive = (platform: string) => join(RELEASE, archiveName(platform));
/** Every file a release publishes but SHA256SUMS (the workflow uploads dist/release/* as it is). */
const FILES = [
  ...PLATFORMS.map(binaryName),
  ...PLATFORMS.map(archiveName),
  `webapi-credential-${VERSION}.cdx.json`,
  `webapi-credential-${VERSION}.tgz`,
  'webapi-credential.json',
  'webapi-credential.rb',
].sort();
const REPOSITORY = PACKAGE.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const download = (platform: string) => `${REPOSITORY}/releases/download/v${VERSION}/${archiveName(platform)}`;
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const caData = () => readFileSync(pki.ca.certFile, 'utf8');

function newestSource(): number {
  const out = execFileSync('git', ['ls-files', 'src', 'scripts', 'package.json', 'package-lock.json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  // And the commit: the archives are dated by it, so a release made before a commit is stale.
  const committed = Number(execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: ROOT, encoding: 'utf8' })) * 1000;
  return Math.max(
    committed,
    ...out
      .trim()
      .split('\n')
      .map((path) => (existsSync(join(ROOT, path)) ? statSync(join(ROOT, path)).mtimeMs : 0)),
  );
}

function runArm64(args: string[], env: Record<string, string> = {}) {
  return runCommand(QEMU_AARCH64.path!, ['-L', '/usr/aarch64-linux-gnu', file('linux-arm64'), ...args], {
    PATH: '/usr/bin:/bin',
    ...env,
  });
}

/** dist/release/, built unless it is newer than the sources. */
function release() {
  const sums = join(RELEASE, 'SHA256SUMS');
  if (!existsSync(sums) || statSync(sums).mtimeMs < newestSource()) {
    execFileSync(PINNED_NODE, [join(ROOT, 'scripts', 'release.mjs')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
}

/** A token API answering a list whose one item match() picks, and keeping the client assertion jwt() made. */
async function jwtAndMatchApi(): Promise<{ api: TokenApi; config: string; assertion: () => string }> {
  let assertion = '';
  const api = await startApi((request, response) => {
    assertion = new URLSearchParams(request.body).get('client_assertion') ?? '';
    json(response, 200, {
      items: [
        { name: 'other', token: 'nope' },
        { name: 'kube-api', token: SECRET.token },
      ],
      expires_in: 600,
    });
  });
  const config = provider({
    method: 'POST',
    url: `${api.url}/token`,
    form: {
      client_assertion:
        '{{ jwt({ iss: "release", aud: "test" }, "a-shared-secret-of-32-bytes-or-more!", { alg: "HS256" }) }}',
    },
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
  const [header, claims] = assertion
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  expect({ alg: header.alg, iss: claims.iss, aud: claims.aud }).toEqual({ alg: 'HS256', iss: 'release', aud: 'test' });
}

async function plainFetchConfig(): Promise<{ api: TokenApi; config: string }> {
  const api = await startApi((_request, response) =>
    json(response, 200, { access_token: SECRET.token, expires_in: 600 }),
  );
  return {
    api,
    config: provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caData: caData() },
    }),
  };
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
  const name = (at: number) =>
    data
      .subarray(at, at + 16)
      .toString('latin1')
      .replace(/\0+$/, '');
  const result: MachO = { cputype: data.readUInt32LE(4), segments: {}, signed: false };
  let at = 32;
  for (let i = 0; i < data.readUInt32LE(16); i++) {
    const [cmd, size] = [data.readUInt32LE(at), data.readUInt32LE(at + 4)];
    if (cmd === 0x19) {
      // LC_SEGMENT_64: segname at 8, nsects at 64, then 80-byte sections (sectname first).
      result.segments[name(at + 8)] = Array.from({ length: data.readUInt32LE(at + 64) }, (_, s) =>
        name(at + 72 + s * 80),
      );
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
  const targets = () =>
    JSON.parse(readFileSync(join(ROOT, 'dist', 'release-nodes', 'targets.json'), 'utf8')) as Target[];

  it('are every file a release publishes, each listed in SHA256SUMS, which sha256sum -c accepts', () => {
    expect(readdirSync(RELEASE).sort()).toEqual([...FILES, 'SHA256SUMS'].sort());
    const sums = readFileSync(join(RELEASE, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(sums.map((line) => line.split('  ')[1])).toEqual(FILES);
    for (const line of sums) expect(line.split('  ')[0]).toBe(sha256(join(RELEASE, line.split('  ')[1]!)));
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: RELEASE, encoding: 'utf8' })).toBe(
      FILES.map((name) => `${name}: OK\n`).join(''),
    );
  });

  it('run on arm64 (under qemu): --version, validate and a real fetch', async () => {
    expect((await runArm64(['--version'])).stdout).toMatch(VERSION_LINE);
    const { api, config } = await plainFetchConfig();
    const validated = await runArm64(['validate', '--config-inline', config]);
    expect(validated).toEqual({
      code: 0,
      stdout: `config from --config-inline is valid: POST ${api.url}/token\n`,
      stderr: '',
    });
    const fetched = await runArm64(['--config-inline', config]);
    expect(fetched.stderr).toBe('');
    expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
  });

  it('load their lazy assets on arm64 (under qemu): jose for jwt(), re2js for match()', async () => {
    const { config, assertion } = await jwtAndMatchApi();
    expectJwtAndMatch(await runArm64(['--config-inline', config]), assertion());
  });

  it('are the executables their platforms load, each carrying the blob', () => {
    expect(readFileSync(file('linux-x64')).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(readFileSync(file('linux-arm64')).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(peMachine(file('win-x64'))).toBe(0x8664); // IMAGE_FILE_MACHINE_AMD64
    expect(peMachine(file('win-arm64'))).toBe(0xaa64); // IMAGE_FILE_MACHINE_ARM64
    for (const platform of PLATFORMS) expect(readFileSync(file(platform)).includes('NODE_SEA_BLOB')).toBe(true);
  });

  it('are Mach-Os of their CPU with the blob in a NODE_SEA segment, signed ad hoc: every page hash verifies', () => {
    const CPU_TYPE_X86_64 = 0x01000007;
    const CPU_TYPE_ARM64 = 0x0100000c;
    for (const [platform, cputype] of [
      ['darwin-x64', CPU_TYPE_X86_64],
      ['darwin-arm64', CPU_TYPE_ARM64],
    ] as const) {
      const macho = machO(file(platform));
      expect(macho.cputype).toBe(cputype);
      expect(macho.segments['NODE_SEA']).toEqual(['__NODE_SEA_BLOB']);
      // Injection dropped Node's signature; macOS on Apple silicon runs no unsigned code: release.mjs signs.
      expect(macho.signed).toBe(true);
      const bytes = readFileSync(file(platform));
      const signature = readSignature(bytes)!;
      const cd = signature.codeDirectory;
      expect({
        version: cd.version,
        flags: cd.flags,
        identifier: cd.identifier,
        hashType: cd.hashType,
        pageSize: cd.pageSize,
        nSpecialSlots: cd.nSpecialSlots,
        execSegBase: cd.execSegBase,
        execSegFlags: cd.execSegFlags,
      }).toEqual({
        version: 0x20400,
        flags: 0x2, // CS_ADHOC
        identifier: 'webapi-credential',
        hashType: 2, // SHA-256
        pageSize: 12,
        nSpecialSlots: 2,
        execSegBase: signature.segments['__TEXT']!.fileoff,
        execSegFlags: 1n, // CS_EXECSEG_MAIN_BINARY
      });
      expect(cd.execSegLimit).toBe(signature.segments['__TEXT']!.filesize);
      expect([...signature.blobs.keys()]).toEqual([0, 2]);
      expect(cd.nCodeSlots).toBeGreaterThan(25_000);
      expect(verifySignature(bytes, signature)).toEqual([]);
    }
  });

  it('hold each binary in an archive, as webapi-credential[.exe] with LICENSE, README.md and THIRD-PARTY-NOTICES', () => {
    for (const platform of PLATFORMS) {
      const windows = platform.startsWith('win-');
      const name = `webapi-credential${windows ? '.exe' : ''}`;
      const listing = windows
        ? execFileSync('unzip', ['-Z1', archive(platform)], { encoding: 'utf8' })
        : execFileSync('tar', ['-tzf', archive(platform)], { encoding: 'utf8' });
      expect(listing).toBe(`${name}\nLICENSE\nREADME.md\nTHIRD-PARTY-NOTICES\n`);
      // Unpacked once (each read of a .tar.gz inflates all ~100 MB of it).
      const unpacked = mkdtempSync(join(tmpdir(), 'webapi-credential-archive-'));
      try {
        if (windows) execFileSync('unzip', ['-q', archive(platform), '-d', unpacked]);
        else execFileSync('tar', ['-xzf', archive(platform), '-C', unpacked]);
        // Node's licence (which holds those of V8, OpenSSL, ICU...) of the very version inside, and each bundled package's.
        const notices = readFileSync(join(unpacked, 'THIRD-PARTY-NOTICES'), 'utf8');
        const node = targets().find((target) => target.platform === platform)!.node;
        expect(notices).toContain(`Node.js ${node}: the runtime the executable is made of`);
        expect(notices).toContain('Node.js is licensed for use as follows:');
        expect(notices).toContain('OpenSSL');
        for (const pkg of ['commander', 'yaml', 'json-p3', 'jsep', '@jsep-plugin/object', 'jose', 're2js']) {
          const { version, license } = JSON.parse(
            readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8'),
          );
          expect(notices).toContain(`${pkg} ${version} (${license}): bundled`);
        }
        expect(sha256(join(unpacked, name))).toBe(sha256(file(platform)));
      } finally {
        rmSync(unpacked, { recursive: true, force: true });
      }
      expect(statSync(archive(platform)).size).toBeLessThan(statSync(file(platform)).size / 2);
    }
    // Made by UNIX with mode 0755: unzip on Linux or macOS extracts it executable.
    expect(execFileSync('zipinfo', [archive('win-x64'), 'webapi-credential.exe'], { encoding: 'utf8' })).toMatch(
      /^-rwxr-xr-x /,
    );
  });

  it('are made of a Node that keeps the NODE_OPTIONS promise, newest first: the pinned one, else the newest that does', () => {
    const nodes = Object.fromEntries(targets().map((target) => [target.platform, target.node]));
    expect(nodes['linux-x64']).toBe(process.versions.node);
    // npm ships no Node 24 for arm64 Windows, and for Apple silicon only 24.0.0, older than
    // execArgvExtension (24.7.0): both are made of the newest 22 that npm ships for them.
    expect(nodes['win-arm64']).toMatch(/^22\./);
    expect(nodes['darwin-arm64']).toMatch(/^22\./);
    expect(
      targets()
        .filter((target) => target.codeCache)
        .map((target) => target.platform),
    ).toEqual(['linux-x64']);
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
          execFileSync(
            PINNED_NODE,
            [
              join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js'),
              binary,
              'NODE_SEA_BLOB',
              target.blob,
              '--sentinel-fuse',
              'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
            ],
            { stdio: 'ignore' },
          );
        }
        const run = await runCommand(binary, ['--version'], {
          PATH: '/usr/bin:/bin',
          NODE_OPTIONS: HOSTILE_NODE_OPTIONS,
        });
        expect({ node: target.node, ...run }).toEqual({
          node: target.node,
          code: 0,
          stdout: expect.stringMatching(VERSION_LINE),
          stderr: '',
        });
        const { config, assertion } = await jwtAndMatchApi();
        expectJwtAndMatch(
          await runCommand(binary, ['--config-inline', config], { PATH: '/usr/bin:/bin' }),
          assertion(),
        );
        rmSync(binary);
      }
      expect(seen.size).toBeGreaterThan(1);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('hold a Homebrew formula: both darwin archives of the GitHub release of the tag, with their checksums and the least macOS of each, tested by formula.test.ts', () => {
    const formula = readFileSync(join(RELEASE, 'webapi-credential.rb'), 'utf8');
    const block = (name: string) =>
      formula
        .match(
          new RegExp(
            `on_${name} do\\n\\s*url "([^"]+)"\\n\\s*sha256 "([0-9a-f]{64})"\\n\\s*depends_on macos: :(\\w+) # macOS ([\\d.]+) or later\\n\\s*end`,
          ),
        )
        ?.slice(1);
    // The least macOS is what each binary's Node was built for, read from its Mach-O: Node 22 (darwin-arm64)
    // 11.0, Node 24 (darwin-x64) 13.5, as Node's BUILDING.md of each line says.
    expect([leastMacos(readFileSync(file('darwin-arm64'))), leastMacos(readFileSync(file('darwin-x64')))]).toEqual([
      '11.0',
      '13.5',
    ]);
    expect(block('arm')).toEqual([download('darwin-arm64'), sha256(archive('darwin-arm64')), 'big_sur', '11.0']);
    expect(block('intel')).toEqual([download('darwin-x64'), sha256(archive('darwin-x64')), 'ventura', '13.5']);
    expect(formula).toContain('class WebapiCredential < Formula');
    expect(formula).toContain(`version "${VERSION}"`);
    // What brew audit asks of a description: no leading article, at most 80 characters.
    expect(formula).toContain('desc "Generic Kubernetes client-go exec credential plugin"');
    // Signed at release: installing is copying the archive's binary.
    expect(formula).toMatch(/def install\n(\s*#.*\n)?\s*bin\.install "webapi-credential"\n\s*end/);
    expect(formula).not.toContain('codesign');
    // The very formula formula.test.ts runs the test block of.
    expect(formula).toBe(
      formulaText({
        version: VERSION,
        description: 'Generic Kubernetes client-go exec credential plugin',
        homepage: REPOSITORY,
        license: 'Apache-2.0',
        arm: { url: download('darwin-arm64'), sha256: sha256(archive('darwin-arm64')), least: '11.0' },
        intel: { url: download('darwin-x64'), sha256: sha256(archive('darwin-x64')), least: '13.5' },
      }),
    );
    expect(REPOSITORY).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
  });

  it("carry a code cache (linux-x64) that a Node of another random seed accepts: made with V8's generator seeded, not the hash seed", () => {
    const target = targets().find((t) => t.platform === 'linux-x64')!;
    expect(target.codeCache).toBe(true);
    const work = dirname(target.blob);
    for (const name of ['fast', 'full']) {
      const check = `const vm = require('node:vm'); const fs = require('node:fs');
const script = new vm.Script(fs.readFileSync(process.argv[1], 'utf8'), { filename: 'sea-asset:${name}.cjs', cachedData: fs.readFileSync(process.argv[2]) });
process.stdout.write(String(script.cachedDataRejected));`;
      const accepted = spawnSync(
        PINNED_NODE,
        ['-e', check, join(work, `${name}.cjs`), `${target.blob}.${name}.cache`],
        { encoding: 'utf8' },
      );
      expect({ status: accepted.status, stdout: accepted.stdout, stderr: accepted.stderr }).toEqual({
        status: 0,
        stdout: 'false',
        stderr: '',
      });
    }
  });

  // Reproducible (SPEC "Release"): the same commit released from another checkout path gives the same
  // bytes (scripts/verify-release.mjs compares them). The other checkout is a copy of this one's files
  // under dist/ (node_modules and the Node binaries from npm linked, not downloaded again), released
  // for one platform of each Node version the blobs are made by and of each format (ELF stripped,
  // Mach-O signed, PE cleaned; the code cache): half a release. Every file of all six platforms is
  // compared at each tagged release, in the workflow (workflow.test.ts).
  it('are the same bytes when released from another checkout path', () => {
    const copy = join(ROOT, 'dist', 'reproduce', 'checkout-elsewhere');
    rmSync(join(ROOT, 'dist', 'reproduce'), { recursive: true, force: true });
    const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).split('\0');
    for (const path of tracked.filter((p) => p !== '' && existsSync(join(ROOT, p)))) {
      mkdirSync(dirname(join(copy, path)), { recursive: true });
      copyFileSync(join(ROOT, path), join(copy, path));
    }
    execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(copy, 'node_modules')]);
    mkdirSync(join(copy, 'dist', 'release-nodes'), { recursive: true });
    for (const name of readdirSync(join(ROOT, 'dist', 'release-nodes')).filter((n) => n.startsWith('node-'))) {
      execFileSync('cp', ['-al', join(ROOT, 'dist', 'release-nodes', name), join(copy, 'dist', 'release-nodes', name)]);
    }
    const targets = JSON.parse(readFileSync(join(ROOT, 'dist', 'release-nodes', 'targets.json'), 'utf8')) as {
      platform: string;
      node: string;
    }[];
    const again = ['linux-x64', 'darwin-x64', 'win-arm64'];
    // One of each: every Node version a blob is made by, the code cache, and each of the three formats.
    expect(new Set(targets.filter((t) => again.includes(t.platform)).map((t) => t.node))).toEqual(
      new Set(targets.map((t) => t.node)),
    );
    // Dated by the same commit as the first (the copy has no .git of its own).
    const epoch = execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: ROOT, encoding: 'utf8' }).trim();
    execFileSync(PINNED_NODE, [join(copy, 'scripts', 'release.mjs')], {
      cwd: copy,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, SOURCE_DATE_EPOCH: epoch, RELEASE_PLATFORMS: again.join(',') },
    });
    const compared = spawnSync(
      PINNED_NODE,
      [join(ROOT, 'scripts', 'verify-release.mjs'), RELEASE, join(copy, 'dist', 'release')],
      { encoding: 'utf8' },
    );
    const made = [...again.map(binaryName), ...again.map(archiveName), `webapi-credential-${VERSION}.tgz`];
    expect(compared.stdout.split('\n').filter((line) => made.some((name) => line.startsWith(`${name}: `)))).toEqual(
      made.sort().map((name) => `${name}: same`),
    );
    // The half release holds what it made, its SBOM and its SHA256SUMS: nothing else.
    expect(readdirSync(join(copy, 'dist', 'release')).sort()).toEqual(
      [...made, `webapi-credential-${VERSION}.cdx.json`, 'SHA256SUMS'].sort(),
    );
    // Neither checkout's path is in any file.
    expect(FILES.filter((name) => readFileSync(join(RELEASE, name)).includes(ROOT))).toEqual([]);
    expect(
      readdirSync(join(copy, 'dist', 'release')).filter((name) =>
        readFileSync(join(copy, 'dist', 'release', name)).includes(copy),
      ),
    ).toEqual([]);
    rmSync(join(ROOT, 'dist', 'reproduce'), { recursive: true, force: true });
  }, 1_800_000);

  it('hold a Scoop manifest: the win-x64 and win-arm64 archives of the GitHub release of the tag, with their hashes', () => {
    const manifest = JSON.parse(readFileSync(join(RELEASE, 'webapi-credential.json'), 'utf8'));
    expect(manifest).toMatchObject({
      version: VERSION,
      bin: 'webapi-credential.exe',
      architecture: {
        '64bit': { url: download('win-x64'), hash: sha256(archive('win-x64')) },
        arm64: { url: download('win-arm64'), hash: sha256(archive('win-arm64')) },
      },
    });
  });

  it('hold a CycloneDX SBOM naming exactly the packages the binaries bundle, at their locked versions', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<
        string,
        { version: string; integrity: string; license: string; dependencies?: Record<string, string> }
      >;
    };
    // What src/ imports by name, and what those need in turn: what esbuild has to put in the bundle.
    const imported = new Set(
      execFileSync('git', ['grep', '-hoE', String.raw`(from|import\() ?'[^.'][^']*'`, '--', 'src'], {
        cwd: ROOT,
        encoding: 'utf8',
      })
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
    expect([...imported].sort()).toEqual([
      '@jsep-plugin/object',
      'commander',
      'jose',
      'jsep',
      'json-p3',
      're2js',
      'yaml',
    ]);

    const sbom = JSON.parse(readFileSync(join(RELEASE, `webapi-credential-${VERSION}.cdx.json`), 'utf8'));
    expect({
      format: sbom.bomFormat,
      spec: sbom.specVersion,
      name: sbom.metadata.component.name,
      version: sbom.metadata.component.version,
    }).toEqual({
      format: 'CycloneDX',
      spec: '1.6',
      name: 'webapi-credential',
      version: VERSION,
    });
    const libraries = (
      sbom.components as {
        type: string;
        group?: string;
        name: string;
        version: string;
        purl: string;
        properties?: unknown[];
      }[]
    ).filter((c) => c.type === 'library');
    const components = libraries.map((c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`);
    expect(components.sort()).toEqual([...expected].sort());
    for (const component of libraries as Array<(typeof libraries)[number] & { hashes: unknown; licenses: unknown }>) {
      expect(component.purl).toMatch(/^pkg:npm\//);
      // The hash npm checks the package by (the lockfile's integrity, as hex) and its licence.
      const entry = lock.packages[`node_modules/${component.group ? `${component.group}/` : ''}${component.name}`]!;
      expect(entry.version).toBe(component.version);
      expect(component.hashes).toEqual([
        { alg: 'SHA-512', content: Buffer.from(entry.integrity.replace(/^sha512-/, ''), 'base64').toString('hex') },
      ]);
      expect(component.licenses).toEqual([
        expect.objectContaining({ license: expect.objectContaining({ id: entry.license }) }),
      ]);
      // Bundled, so part of what runs: not flagged as a development package (cyclonedx-npm's mark for devDependencies).
      expect(component.properties ?? []).not.toContainEqual(
        expect.objectContaining({ name: 'cdx:npm:package:development' }),
      );
    }
  });

  it('hold in the SBOM each binary with its SHA-256, the Node runtime it embeds (name, version, platform), a serial number, and it is schema-valid', async () => {
    const text = readFileSync(join(RELEASE, `webapi-credential-${VERSION}.cdx.json`), 'utf8');
    // The CycloneDX library's own JSON schema of 1.6, strict (no field it does not know).
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text)).toBeNull();
    const sbom = JSON.parse(text);
    expect(sbom.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    interface Component {
      'bom-ref': string;
      type: string;
      name: string;
      version: string;
      cpe: string;
      properties: { name: string; value: string }[];
    }
    const byRef = new Map((sbom.components as Component[]).map((c) => [c['bom-ref'], c]));
    for (const target of targets()) {
      const binary = sbom.components.find(
        (c: { type: string; name: string }) => c.type === 'file' && c.name === binaryName(target.platform),
      );
      expect(binary.hashes).toEqual([{ alg: 'SHA-256', content: sha256(file(target.platform)) }]);
      const dependsOn = sbom.dependencies.find((d: { ref: string }) => d.ref === binary['bom-ref'])
        .dependsOn as string[];
      const runtime = dependsOn.map((ref) => byRef.get(ref)!).find((c) => c.type === 'platform')!;
      expect({
        name: runtime.name,
        version: runtime.version,
        platform: runtime.properties.find((p) => p.name === 'webapi-credential:platform')?.value,
        cpe: runtime.cpe,
      }).toEqual({
        name: 'node',
        version: target.node,
        platform: target.platform,
        cpe: `cpe:2.3:a:nodejs:node.js:${target.node}:*:*:*:*:*:*:*`,
      });
      // ...and every bundled package.
      expect(dependsOn.filter((ref) => byRef.get(ref)!.type === 'library')).toHaveLength(7);
    }
    // The same content, the same serial: it is derived, not random.
    const again = readFileSync(join(RELEASE, `webapi-credential-${VERSION}.cdx.json`), 'utf8');
    expect(JSON.parse(again).serialNumber).toBe(sbom.serialNumber);
  });
});

describeWith(QEMU_AARCH64, OSSLSIGNCODE)('the Windows release binaries, read by osslsigncode', () => {
  beforeAll(release, 900_000);

  it('are unsigned, not broken: no stale security directory, the right checksum', () => {
    for (const platform of ['win-x64', 'win-arm64']) {
      const bytes = readFileSync(file(platform));
      const optional = bytes.readUInt32LE(0x3c) + 24;
      expect({ platform, security: bytes.readBigUInt64LE(optional + 112 + 4 * 8) }).toEqual({ platform, security: 0n });
      expect(osslVerify(file(platform))).toEqual(UNSIGNED(bytes.readUInt32LE(optional + 64)));
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
    const command = [
      ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
      '/usr/lib/wine/wine64',
      `/mnt/release/${binaryName('win-x64')}`,
      ...args,
    ];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(
        'unshare',
        [
          '--mount',
          '--pid',
          '--fork',
          `--mount-proc=${root}/proc`,
          'sh',
          '-c',
          script,
          'sh',
          root,
          RELEASE,
          ...command,
        ],
        { stdio: ['ignore', out, err] },
      );
      child.on('error', reject);
      child.on('close', resolve);
    });
    return {
      code,
      stdout: readFileSync(join(dir, 'stdout'), 'utf8'),
      stderr: readFileSync(join(dir, 'stderr'), 'utf8'),
    };
  } finally {
    closeSync(out);
    closeSync(err);
    rmSync(dir, { recursive: true, force: true });
  }
}

describeWith(WINE_ROOT, AS_ROOT)('the win-x64 binary under Wine 10 (a Debian 13 root)', () => {
  beforeAll(release, 900_000);

  it('answers --version, NODE_OPTIONS ignored', async () => {
    expect(await runWine(['--version'], { NODE_OPTIONS: HOSTILE_NODE_OPTIONS })).toEqual({
      code: 0,
      stdout: expect.stringMatching(VERSION_LINE),
      stderr: '',
    });
  });

  it('validates a config and fetches a credential from a local HTTPS token API', async () => {
    const { api, config } = await plainFetchConfig();
    expect(await runWine(['validate', '--config-inline', config])).toEqual({
      code: 0,
      stdout: `config from --config-inline is valid: POST ${api.url}/token\n`,
      stderr: '',
    });
    const fetched = await runWine(['--config-inline', config]);
    expect(fetched.stderr).toBe('');
    expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
  });

  it('loads its lazy assets: jose for jwt(), re2js for match()', async () => {
    const { config, assertion } = await jwtAndMatchApi();
    expectJwtAndMatch(await runWine(['--config-inline', config]), assertion());
  });
});

describeWith(
  QEMU_AARCH64,
  BUILDAH,
  DEBOOTSTRAP,
  AS_ROOT,
)('the image of the release binaries', () => {
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
        execFileSync(DEBOOTSTRAP.path!, ['--variant=minbase', 'bookworm', rootfs, 'http://deb.debian.org/debian'], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        const base = buildah('from', 'scratch');
        execFileSync('cp', ['-a', `${rootfs}/.`, `${buildah('mount', base)}/`]);
        buildah('umount', base);
        buildah('commit', '--quiet', '--rm', base, BASE);
      } finally {
        rmSync(rootfs, { recursive: true, force: true });
      }
    }
    for (const arch of ['amd64', 'arm64']) {
      buildah(
        'bud',
        '--quiet',
        '--isolation',
        'chroot',
        '--pull-never',
        '--build-arg',
        `TARGETARCH=${arch}`,
        '--tag',
        `webapi-credential:test-${arch}`,
        '.',
      );
    }
  }, 600_000);

  afterAll(() => {
    for (const container of containers) buildah('rm', container);
  });

  it('amd64: runs --version from the image, as user 65532, the release binary unchanged', () => {
    const image = mounted('webapi-credential:test-amd64');
    expect(
      buildah('run', '--isolation', 'chroot', image.container, '--', '/usr/local/bin/webapi-credential', '--version'),
    ).toMatch(VERSION_LINE);
    expect(
      buildah(
        'inspect',
        '--type',
        'image',
        '--format',
        '{{.OCIv1.Config.User}} {{.OCIv1.Config.Entrypoint}}',
        'webapi-credential:test-amd64',
      ),
    ).toBe('65532:65532 [/usr/local/bin/webapi-credential]');
    expect(sha256(join(image.root, 'usr/local/bin/webapi-credential'))).toBe(sha256(file('linux-x64')));
  });

  it('arm64: the image holds the linux-arm64 binary, which runs --version (under qemu)', async () => {
    const image = mounted('webapi-credential:test-arm64');
    const binary = join(image.root, 'usr/local/bin/webapi-credential');
    expect(sha256(binary)).toBe(sha256(file('linux-arm64')));
    const run = await runCommand(QEMU_AARCH64.path!, ['-L', '/usr/aarch64-linux-gnu', binary, '--version'], {
      PATH: '/usr/bin:/bin',
    });
    expect(run).toEqual({ code: 0, stdout: expect.stringMatching(VERSION_LINE), stderr: '' });
  });
});
