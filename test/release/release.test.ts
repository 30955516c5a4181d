// `npm run release`: a binary for every platform npm ships a Node 24 for, and SHA256SUMS. The
// linux-arm64 one runs here under qemu (a real fetch from a local HTTPS token API, --version,
// validate); the others are checked for what they are. Built once per run when missing or older
// than the sources (it takes a minute or two).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { PINNED_NODE, ROOT, runCommand } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, provider, tokenApis } from '../helpers/integration.js';
import { describeWith, QEMU_AARCH64 } from '../helpers/tools.js';

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

describeWith(QEMU_AARCH64)('the release binaries', () => {
  beforeAll(() => {
    const sums = join(RELEASE, 'SHA256SUMS');
    if (!existsSync(sums) || statSync(sums).mtimeMs < newestSource()) {
      execFileSync(PINNED_NODE, [join(ROOT, 'scripts', 'release.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }, 600_000);

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
  // No run of the Windows binary: Debian 12's wine 8.0 crashes at the start of Node 24's node.exe
  // (an unhandled breakpoint exception, with or without the SEA blob), so it proves nothing here.
});
