// A reader of the code signature of a thin 64-bit Mach-O, written from Apple's format (xnu's
// cs_blobs.h, mach-o/loader.h), apart from the signer (scripts/macho-sign.mjs) it checks: the load
// command, the SuperBlob, the CodeDirectory's fields and hashes, and every page hash recomputed.
import { createHash } from 'node:crypto';

export interface CodeDirectory {
  version: number;
  flags: number;
  hashOffset: number;
  identOffset: number;
  nSpecialSlots: number;
  nCodeSlots: number;
  codeLimit: number;
  hashSize: number;
  hashType: number;
  platform: number;
  pageSize: number;
  spare2: number;
  scatterOffset: number;
  teamOffset: number;
  spare3: number;
  codeLimit64: bigint;
  execSegBase: bigint;
  execSegLimit: bigint;
  execSegFlags: bigint;
  identifier: string;
  /** Special slots, -1 first (index 0 is slot -1). */
  specialHashes: string[];
  codeHashes: string[];
  /** The blob's bytes. */
  bytes: Buffer;
}

export interface MachOSignature {
  cputype: number;
  filetype: number;
  /** Offset of the LC_CODE_SIGNATURE command, and its data. */
  commandAt: number;
  dataoff: number;
  datasize: number;
  /** The SuperBlob's index: slot type → the blob's bytes. */
  blobs: Map<number, Buffer>;
  codeDirectory: CodeDirectory;
  segments: Record<string, { at: number; vmsize: bigint; fileoff: bigint; filesize: bigint }>;
}

const hex = (bytes: Buffer) => bytes.toString('hex');

/** The signature of `file`, or undefined when it has no LC_CODE_SIGNATURE. Throws on what is malformed. */
export function readSignature(file: Buffer): MachOSignature | undefined {
  if (file.readUInt32LE(0) !== 0xfeedfacf) throw new Error('not MH_MAGIC_64');
  const segments: MachOSignature['segments'] = {};
  let command: number | undefined;
  let at = 32;
  for (let i = 0; i < file.readUInt32LE(16); i++) {
    const cmd = file.readUInt32LE(at);
    if (cmd === 0x19) {
      const name = file
        .subarray(at + 8, at + 24)
        .toString('latin1')
        .replace(/\0+$/, '');
      segments[name] = {
        at,
        vmsize: file.readBigUInt64LE(at + 32),
        fileoff: file.readBigUInt64LE(at + 40),
        filesize: file.readBigUInt64LE(at + 48),
      };
    }
    if (cmd === 0x1d) command = at;
    at += file.readUInt32LE(at + 4);
  }
  if (at !== 32 + file.readUInt32LE(20)) throw new Error('sizeofcmds disagrees with the commands');
  if (command === undefined) return undefined;
  if (file.readUInt32LE(command + 4) !== 16) throw new Error('LC_CODE_SIGNATURE of a wrong size');
  const dataoff = file.readUInt32LE(command + 8);
  const datasize = file.readUInt32LE(command + 12);
  const data = file.subarray(dataoff, dataoff + datasize);
  if (data.length !== datasize) throw new Error('the signature runs past the end of the file');
  if (data.readUInt32BE(0) !== 0xfade0cc0) throw new Error('not a SuperBlob (CSMAGIC_EMBEDDED_SIGNATURE)');
  if (data.readUInt32BE(4) > datasize) throw new Error('the SuperBlob is longer than its data');
  const blobs = new Map<number, Buffer>();
  for (let i = 0; i < data.readUInt32BE(8); i++) {
    const type = data.readUInt32BE(12 + i * 8);
    const offset = data.readUInt32BE(16 + i * 8);
    blobs.set(type, data.subarray(offset, offset + data.readUInt32BE(offset + 4)));
  }
  const cd = blobs.get(0);
  if (!cd || cd.readUInt32BE(0) !== 0xfade0c02) throw new Error('no CodeDirectory in slot 0');
  const [hashOffset, identOffset, nSpecialSlots, nCodeSlots] = [16, 20, 24, 28].map((o) => cd.readUInt32BE(o)) as [
    number,
    number,
    number,
    number,
  ];
  const hashSize = cd.readUInt8(36);
  const hashes = (first: number, count: number) =>
    Array.from({ length: count }, (_, i) => hex(cd.subarray(first + i * hashSize, first + (i + 1) * hashSize)));
  return {
    cputype: file.readUInt32LE(4),
    filetype: file.readUInt32LE(12),
    commandAt: command,
    dataoff,
    datasize,
    blobs,
    segments,
    codeDirectory: {
      version: cd.readUInt32BE(8),
      flags: cd.readUInt32BE(12),
      hashOffset,
      identOffset,
      nSpecialSlots,
      nCodeSlots,
      codeLimit: cd.readUInt32BE(32),
      hashSize,
      hashType: cd.readUInt8(37),
      platform: cd.readUInt8(38),
      pageSize: cd.readUInt8(39),
      spare2: cd.readUInt32BE(40),
      scatterOffset: cd.readUInt32BE(44),
      teamOffset: cd.readUInt32BE(48),
      spare3: cd.readUInt32BE(52),
      codeLimit64: cd.readBigUInt64BE(56),
      execSegBase: cd.readBigUInt64BE(64),
      execSegLimit: cd.readBigUInt64BE(72),
      execSegFlags: cd.readBigUInt64BE(80),
      identifier: cd.subarray(identOffset, cd.indexOf(0, identOffset)).toString('utf8'),
      // Slot -n is n hashes before hashOffset.
      specialHashes: hashes(hashOffset - nSpecialSlots * hashSize, nSpecialSlots).reverse(),
      codeHashes: hashes(hashOffset, nCodeSlots),
      bytes: cd,
    },
  };
}

/**
 * What a kernel checks of an ad hoc signature, as a list of failures (empty: it verifies): every page
 * of the file up to codeLimit hashed with SHA-256, the Requirements blob's hash in slot -2, the code
 * limit being where the signature starts, and the signature being the end of __LINKEDIT and the file.
 */
export function verifySignature(file: Buffer, signature: MachOSignature): string[] {
  const failures: string[] = [];
  const cd = signature.codeDirectory;
  const page = 1 << cd.pageSize;
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  if (cd.hashType !== 2 || cd.hashSize !== 32) failures.push(`hash type ${cd.hashType}/${cd.hashSize} is not SHA-256`);
  if (cd.codeLimit !== signature.dataoff)
    failures.push(`codeLimit ${cd.codeLimit} is not the signature's offset ${signature.dataoff}`);
  if (cd.nCodeSlots !== Math.ceil(cd.codeLimit / page))
    failures.push(`${cd.nCodeSlots} code slots for ${cd.codeLimit} bytes`);
  for (let i = 0; i < cd.nCodeSlots; i++) {
    const actual = sha256(file.subarray(i * page, Math.min((i + 1) * page, cd.codeLimit)));
    if (actual !== cd.codeHashes[i]) failures.push(`page ${i}: ${actual} != ${cd.codeHashes[i]}`);
  }
  const requirements = signature.blobs.get(2);
  if (requirements && cd.specialHashes[1] !== sha256(requirements))
    failures.push('slot -2 is not the hash of the Requirements blob');
  const linkedit = signature.segments['__LINKEDIT'];
  if (!linkedit || linkedit.fileoff + linkedit.filesize !== BigInt(signature.dataoff + signature.datasize))
    failures.push('the signature is not the end of __LINKEDIT');
  if (linkedit && linkedit.vmsize < linkedit.filesize) failures.push('__LINKEDIT maps less than its file size');
  if (signature.dataoff + signature.datasize !== file.length) failures.push('the signature is not the end of the file');
  return failures;
}
