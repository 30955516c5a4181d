// The release archives (scripts/archive.mjs) read back by the tools a user has: GNU tar for the
// .tar.gz, Info-ZIP's unzip for the .zip (on Windows, Explorer and Expand-Archive read the same
// format). Small inputs here; the release's own archives: test/release/release.test.ts.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tarGz, zip } from '../../scripts/archive.mjs';

const work = mkdtempSync(join(tmpdir(), 'webapi-credential-archive-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// 2026-01-02 03:04:06 UTC (an even second: zip keeps two-second steps).
const MTIME = Date.UTC(2026, 0, 2, 3, 4, 6) / 1000;
const binary = randomBytes(300_000);
const entries = [
  { name: 'webapi-credential', data: binary, mode: 0o755 },
  { name: 'LICENSE', data: Buffer.from('MIT License\n'), mode: 0o644 },
  { name: 'README.md', data: Buffer.from(''), mode: 0o644 },
];

const tarBytes = await tarGz(entries, MTIME);
const zipBytes = await zip(entries, MTIME);

describe('the .tar.gz', () => {
  const archive = join(work, 'a.tar.gz');
  writeFileSync(archive, tarBytes);

  it('lists each entry with its mode, owner 0/0, size and time, as GNU tar reads it', () => {
    const listing = execFileSync('tar', ['--numeric-owner', '--utc', '-tvzf', archive], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', TZ: 'UTC' },
    });
    expect(listing).toBe(
      [
        '-rwxr-xr-x 0/0          300000 2026-01-02 03:04 webapi-credential',
        '-rw-r--r-- 0/0              12 2026-01-02 03:04 LICENSE',
        '-rw-r--r-- 0/0               0 2026-01-02 03:04 README.md',
        '',
      ].join('\n'),
    );
  });

  it('extracts to the same bytes and modes', () => {
    const dir = mkdtempSync(join(work, 'tar-'));
    execFileSync('tar', ['-xzf', archive, '-C', dir]);
    expect(readFileSync(join(dir, 'webapi-credential')).equals(binary)).toBe(true);
    expect(statSync(join(dir, 'webapi-credential')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe('MIT License\n');
    expect(statSync(join(dir, 'LICENSE')).mtimeMs).toBe(MTIME * 1000);
  });

  it('is the same bytes every time, and refuses a name that climbs out', async () => {
    expect((await tarGz(entries, MTIME)).equals(readFileSync(archive))).toBe(true);
    await expect(tarGz([{ name: '../x', data: Buffer.alloc(0), mode: 0o644 }], MTIME)).rejects.toThrow(
      'no such tar entry name',
    );
  });
});

describe('the .zip', () => {
  const archive = join(work, 'a.zip');
  writeFileSync(archive, zipBytes);

  it('passes unzip -t, and zipinfo shows each entry deflated, with its UNIX mode and time', () => {
    expect(execFileSync('unzip', ['-t', archive], { encoding: 'utf8' })).toContain(
      'No errors detected in compressed data',
    );
    const info = execFileSync('zipinfo', ['-T', archive], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.startsWith('-'));
    expect(
      info.map((line) =>
        line
          .split(/\s+/)
          .filter((_, i) => [0, 2, 3, 4, 5, 6, 7].includes(i))
          .join(' '),
      ),
    ).toEqual([
      '-rwxr-xr-x unx 300000 b- defN 20260102.030406 webapi-credential',
      '-rw-r--r-- unx 12 b- defN 20260102.030406 LICENSE',
      '-rw-r--r-- unx 0 b- defN 20260102.030406 README.md',
    ]);
  });

  it('extracts to the same bytes, and is the same bytes every time', async () => {
    expect(execFileSync('unzip', ['-p', archive, 'webapi-credential'], { maxBuffer: 1 << 22 }).equals(binary)).toBe(
      true,
    );
    expect(execFileSync('unzip', ['-p', archive, 'LICENSE'], { encoding: 'utf8' })).toBe('MIT License\n');
    expect((await zip(entries, MTIME)).equals(readFileSync(archive))).toBe(true);
  });
});
