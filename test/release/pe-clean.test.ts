// scripts/pe-clean.mjs on a small PE (a windows/amd64 program Go cross-builds) made to look like
// node.exe after injection: a security directory pointing inside the file at bytes that are no
// signature, and a stale checksum. osslsigncode (what Windows tools see) reads the stale one as broken
// and the clean one as unsigned with the right checksum. The release binaries: test/release/release.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanPe, peChecksum } from '../../scripts/pe-clean.mjs';
import { osslVerify, UNSIGNED } from '../helpers/pe.js';
import { describeWith, GO, OSSLSIGNCODE } from '../helpers/tools.js';

describeWith(GO, OSSLSIGNCODE)('a PE cleaned of a stale signature directory', () => {
  const work = mkdtempSync(join(tmpdir(), 'webapi-credential-pe-'));
  let program: Buffer;
  const directory = (file: Buffer) => {
    const optional = file.readUInt32LE(0x3c) + 24;
    return { checksumAt: optional + 64, securityAt: optional + 112 + 4 * 8 }; // PE32+
  };

  beforeAll(() => {
    writeFileSync(join(work, 'main.go'), 'package main\n\nfunc main() { println("unsigned") }\n');
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: work,
      GOOS: 'windows',
      GOARCH: 'amd64',
      CGO_ENABLED: '0',
      GO111MODULE: 'off',
      GOCACHE: join(work, 'cache'),
      GOPATH: join(work, 'gopath'),
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      GOFLAGS: '',
    };
    execFileSync(GO.path!, ['build', '-o', join(work, 'program.exe'), join(work, 'main.go')], {
      cwd: work,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    program = readFileSync(join(work, 'program.exe'));
  }, 300_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("computes the checksum osslsigncode computes (Go's linker leaves it 0)", () => {
    const lines = osslVerify(join(work, 'program.exe'));
    expect(lines).toContain('Current PE checksum   : 00000000');
    expect(lines).toContain(
      `Calculated PE checksum: ${peChecksum(program).toString(16).toUpperCase().padStart(8, '0')}`,
    );
  });

  it('leaves a PE with a stale security directory unsigned, with the right checksum: what osslsigncode reports', () => {
    const stale = Buffer.from(program);
    const { checksumAt, securityAt } = directory(stale);
    // What injection leaves: the directory pointing at bytes inside the file, the old checksum.
    stale.writeUInt32LE(0x10_0000, securityAt);
    stale.writeUInt32LE(0x2000, securityAt + 4);
    stale.writeUInt32LE(0x1234_5678, checksumAt);
    writeFileSync(join(work, 'stale.exe'), stale);
    const before = osslVerify(join(work, 'stale.exe'));
    expect(before).toContain('Warning: Ignoring PE signature not at the end of the file');
    expect(before).toContain('Warning: invalid PE checksum');

    const clean = cleanPe(Buffer.from(stale));
    expect(clean.readBigUInt64LE(securityAt)).toBe(0n);
    writeFileSync(join(work, 'clean.exe'), clean);
    expect(osslVerify(join(work, 'clean.exe'))).toEqual(UNSIGNED(clean.readUInt32LE(checksumAt)));
    // Nothing else changed.
    const differing = [...clean.keys()].filter((i) => clean[i] !== stale[i]);
    expect(
      differing.every((i) => (i >= checksumAt && i < checksumAt + 4) || (i >= securityAt && i < securityAt + 8)),
    ).toBe(true);
  });

  it('refuses what is not a PE', () => {
    expect(() => cleanPe(Buffer.from('\x7fELF' + '\0'.repeat(100), 'latin1'))).toThrow('not a PE: no MZ header');
    const noPe = Buffer.from(program);
    noPe.write('XX', noPe.readUInt32LE(0x3c), 'latin1');
    expect(() => cleanPe(noPe)).toThrow('not a PE: no PE signature');
  });
});
