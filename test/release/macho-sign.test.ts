// The ad hoc Mach-O signer (scripts/macho-sign.mjs) held against an independent implementation: Go's
// linker, which signs every darwin/arm64 binary it writes. Debian's golang-go cross-builds a small
// program; its signature is taken off (by the stripper below, written from the format), our signer
// signs it again under Go's identifier, and the CodeDirectory must be Go's field for field and hash
// for hash, but for CS_LINKER_SIGNED (Go's mark that the linker, not codesign, made it). Then the
// signature as `codesign -s -` lays it out (with an empty Requirements blob) verifies page by page
// with the reader of test/helpers/macho-signature.ts. The release binaries: test/release/release.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adhocSign } from '../../scripts/macho-sign.mjs';
import { readSignature, verifySignature, type MachOSignature } from '../helpers/macho-signature.js';
import { describeWith, GO } from '../helpers/tools.js';

const CS_ADHOC = 0x2;
const CS_LINKER_SIGNED = 0x20000;

/** `file` without its code signature: the command taken out of the load commands, the data cut off, __LINKEDIT's file size shrunk by it. */
function unsign(file: Buffer, signature: MachOSignature): Buffer {
  const out = Buffer.from(file.subarray(0, signature.dataoff));
  const end = 32 + out.readUInt32LE(20);
  // The commands after it move up; the 16 freed bytes at the end go back to the padding (zeros).
  out.copy(out, signature.commandAt, signature.commandAt + 16, end);
  out.fill(0, end - 16, end);
  out.writeUInt32LE(out.readUInt32LE(16) - 1, 16);
  out.writeUInt32LE(out.readUInt32LE(20) - 16, 20);
  const linkedit = signature.segments['__LINKEDIT']!;
  const at = linkedit.at > signature.commandAt ? linkedit.at - 16 : linkedit.at;
  out.writeBigUInt64LE(BigInt(signature.dataoff) - linkedit.fileoff, at + 48);
  return out;
}

describeWith(GO)("the Mach-O signer against Go's linker (a darwin/arm64 program)", () => {
  const work = mkdtempSync(join(tmpdir(), 'webapi-credential-go-'));
  let go: Buffer;
  let goSignature: MachOSignature;

  beforeAll(() => {
    writeFileSync(
      join(work, 'main.go'),
      'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("signed by the linker") }\n',
    );
    // Offline and self-contained: no module proxy, no toolchain download, caches in the temporary directory.
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: work,
      GOOS: 'darwin',
      GOARCH: 'arm64',
      CGO_ENABLED: '0',
      GO111MODULE: 'off',
      GOCACHE: join(work, 'cache'),
      GOPATH: join(work, 'gopath'),
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      GOFLAGS: '',
    };
    execFileSync(GO.path!, ['build', '-o', join(work, 'hello'), join(work, 'main.go')], {
      cwd: work,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    go = readFileSync(join(work, 'hello'));
    goSignature = readSignature(go)!;
  }, 300_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("Go's own signature is what the reader expects: ad hoc, linker-signed, version 0x20400, and it verifies", () => {
    expect(goSignature.cputype).toBe(0x0100000c);
    const cd = goSignature.codeDirectory;
    expect({ version: cd.version, flags: cd.flags, identifier: cd.identifier }).toEqual({
      version: 0x20400,
      flags: CS_ADHOC | CS_LINKER_SIGNED,
      identifier: 'a.out',
    }); // go build links to a.out, then moves it
    expect(verifySignature(go, goSignature)).toEqual([]);
  });

  it("signs the unsigned program to Go's CodeDirectory, field for field and hash for hash (CS_LINKER_SIGNED aside), and to Go's file", () => {
    const unsigned = unsign(go, goSignature);
    expect(readSignature(unsigned)).toBeUndefined();
    const ours = adhocSign(unsigned, goSignature.codeDirectory.identifier, { requirements: false });
    const signature = readSignature(ours)!;
    const { bytes: _ours, ...fields } = signature.codeDirectory;
    const { bytes: _go, ...goFields } = goSignature.codeDirectory;
    expect({ ...fields, flags: fields.flags | CS_LINKER_SIGNED }).toEqual(goFields);
    expect(fields.flags).toBe(CS_ADHOC);
    expect(fields.codeHashes.length).toBeGreaterThan(400);
    // The bytes too: the whole file is Go's but for that one flag.
    const goBytes = Buffer.from(go);
    const codeDirectoryAt = goSignature.dataoff + go.readUInt32BE(goSignature.dataoff + 16); // the SuperBlob's first index entry
    goBytes.writeUInt32BE(CS_ADHOC, codeDirectoryAt + 12);
    expect(ours.equals(goBytes)).toBe(true);
  });

  it('lays the signature out as codesign -s - does, an empty Requirements blob in slot 2, and every page hash verifies', () => {
    const unsigned = unsign(go, goSignature);
    const signed = adhocSign(unsigned, 'webapi-credential');
    const signature = readSignature(signed)!;
    expect([...signature.blobs.keys()]).toEqual([0, 2]);
    expect(signature.blobs.get(2)!.toString('hex')).toBe('fade0c010000000c00000000');
    const cd = signature.codeDirectory;
    expect({
      flags: cd.flags,
      nSpecialSlots: cd.nSpecialSlots,
      identifier: cd.identifier,
      execSegFlags: cd.execSegFlags,
      execSegLimit: cd.execSegLimit,
    }).toEqual({
      flags: CS_ADHOC,
      nSpecialSlots: 2,
      identifier: 'webapi-credential',
      execSegFlags: 1n, // CS_EXECSEG_MAIN_BINARY
      execSegLimit: goSignature.codeDirectory.execSegLimit,
    });
    expect(cd.specialHashes[0]).toBe('0'.repeat(64)); // slot -1: no Info.plist
    expect(verifySignature(signed, signature)).toEqual([]);
    // Signing a signed file replaces its signature: the same bytes again.
    expect(adhocSign(signed, 'webapi-credential').equals(signed)).toBe(true);
    expect(adhocSign(go, 'webapi-credential').equals(signed)).toBe(true);
  });

  it('the reader catches a page changed after signing (the check can fail)', () => {
    const signed = adhocSign(unsign(go, goSignature), 'webapi-credential');
    signed[0x8000] = signed[0x8000]! ^ 0xff;
    expect(verifySignature(signed, readSignature(signed)!)).toEqual([expect.stringMatching(/^page 8: /)]);
  });

  it('refuses what it cannot sign: not a Mach-O, no room for the load command, an empty identifier', () => {
    expect(() => adhocSign(Buffer.from('\x7fELF' + '\0'.repeat(60), 'latin1'), 'x')).toThrow(
      'not a thin 64-bit little-endian Mach-O',
    );
    expect(() => adhocSign(go, '')).toThrow('identifier');
    const full = unsign(go, goSignature);
    // The padding filled up to the first section: no 16 bytes left for LC_CODE_SIGNATURE.
    const firstSection = readFirstSectionOffset(full);
    full.writeUInt32LE(firstSection - 32 - 8, 20);
    expect(() => adhocSign(full, 'x')).toThrow('no room for LC_CODE_SIGNATURE');
  });
});

/** The file offset of the first section of __TEXT (where the load commands' padding ends). */
function readFirstSectionOffset(file: Buffer): number {
  let at = 32;
  for (let i = 0; i < file.readUInt32LE(16); i++) {
    if (file.readUInt32LE(at) === 0x19 && file.readUInt32LE(at + 64) > 0) return file.readUInt32LE(at + 72 + 48);
    at += file.readUInt32LE(at + 4);
  }
  throw new Error('no section');
}
