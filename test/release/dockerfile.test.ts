// The Dockerfile's checking step alone, run by sh on made-up release directories (the image build
// itself: test/release/release.test.ts): it installs the binary SHA256SUMS lists for the arch, and
// fails the build when the list lacks that binary, when the binary differs from the list, or is missing.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** The RUN step of the `pick` stage, its continuation lines joined, paths moved under `dir`. */
function pickStep(dir: string): string {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('RUN '));
  const end = lines.findIndex((line, i) => i >= start && !line.endsWith('\\'));
  const step = lines
    .slice(start, end + 1)
    .map((line) => line.replace(/\\$/, ''))
    .join('\n')
    .replace(/^RUN /, '');
  return step
    .replace(/(^|[\s"])\/release/g, `$1${dir}/release`)
    .replace(/ \/webapi-credential$/, ` ${dir}/out/webapi-credential`);
}

const work: string[] = [];
afterEach(() => {
  for (const dir of work.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A release directory holding `files`, with SHA256SUMS listing `listed` (name → content as listed). */
function release(files: Record<string, string>, listed: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-dockerfile-'));
  work.push(dir);
  mkdirSync(join(dir, 'release'));
  mkdirSync(join(dir, 'out'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, 'release', name), content);
  const sum = (content: string) => createHash('sha256').update(content).digest('hex');
  writeFileSync(
    join(dir, 'release', 'SHA256SUMS'),
    Object.entries(listed)
      .map(([name, content]) => `${sum(content)}  ${name}\n`)
      .join(''),
  );
  return dir;
}

function pick(dir: string, arch: string) {
  const result = spawnSync('sh', ['-c', pickStep(dir)], {
    env: { PATH: '/usr/bin:/bin', TARGETARCH: arch },
    encoding: 'utf8',
  });
  const installed = join(dir, 'out', 'webapi-credential');
  return {
    status: result.status,
    stderr: result.stderr,
    installed: existsSync(installed) ? readFileSync(installed, 'utf8') : undefined,
  };
}

describe("the Dockerfile's checksum step", () => {
  const both = {
    'webapi-credential-1.2.3-linux-x64': 'x64 binary',
    'webapi-credential-1.2.3-linux-arm64': 'arm64 binary',
  };

  it('installs the listed binary of the target arch, and only it', () => {
    const dir = release(both, both);
    expect(pick(dir, 'amd64')).toMatchObject({ status: 0, installed: 'x64 binary' });
    rmSync(join(dir, 'out', 'webapi-credential'));
    expect(pick(dir, 'arm64')).toMatchObject({ status: 0, installed: 'arm64 binary' });
  });

  it('fails when SHA256SUMS does not list the arch (the other one listed, and an archive of it)', () => {
    const dir = release(
      { ...both, 'webapi-credential-1.2.3-linux-arm64.tar.gz': 'archive' },
      { 'webapi-credential-1.2.3-linux-x64': 'x64 binary', 'webapi-credential-1.2.3-linux-arm64.tar.gz': 'archive' },
    );
    expect(pick(dir, 'arm64')).toEqual({
      status: 1,
      stderr: 'SHA256SUMS lists no linux-arm64 binary\n',
      installed: undefined,
    });
  });

  it('fails when the binary is not what SHA256SUMS lists, or is missing', () => {
    const changed = release(both, { ...both, 'webapi-credential-1.2.3-linux-x64': 'another binary' });
    expect(pick(changed, 'amd64')).toMatchObject({ status: 1, installed: undefined });
    const missing = release({ 'webapi-credential-1.2.3-linux-arm64': 'arm64 binary' }, both);
    expect(pick(missing, 'amd64')).toMatchObject({ status: 1, installed: undefined });
  });

  it('fails on an arch there is no binary for', () => {
    expect(pick(release(both, both), 's390x')).toEqual({
      status: 1,
      stderr: 'no release binary for s390x\n',
      installed: undefined,
    });
  });
});
