// Ad hoc code signing of a thin 64-bit little-endian Mach-O, on any OS: what `codesign --sign -`
// does on a Mac, and what Go's linker does for every darwin/arm64 binary it writes. macOS on Apple
// silicon kills unsigned arm64 code at exec, and injecting the SEA blob dropped Node's signature;
// nothing in Debian or npm signs a Mach-O on Linux, so the release does it here (docs/release.md).
//
// The layout, from Apple's format (xnu's cs_blobs.h, mach-o/loader.h; all signature fields are
// big-endian, the Mach-O's own little-endian):
// - an LC_CODE_SIGNATURE load command (linkedit_data_command: cmd, cmdsize 16, dataoff, datasize),
//   taken from the padding between the load commands and the first section when there is none;
// - the signature at the end of __LINKEDIT (16-byte aligned), whose filesize (and vmsize, rounded
//   to the segment alignment) grows by it: the last bytes of the file;
// - the signature is a SuperBlob (0xfade0cc0) holding a CodeDirectory (0xfade0c02, version 0x20400,
//   CS_ADHOC, SHA-256 of every 4 KiB page of the file up to the signature, the last one partial, and
//   the executable segment: __TEXT's offset and size, CS_EXECSEG_MAIN_BINARY for an executable) and,
//   as `codesign -s -` writes, an empty Requirements blob (0xfade0c01) whose hash is special slot -2.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

const MH_MAGIC_64 = 0xfeedfacf;
const MH_EXECUTE = 2;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CPU_TYPE_ARM64 = 0x0100000c;

const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSMAGIC_REQUIREMENTS = 0xfade0c01;
const CSSLOT_CODEDIRECTORY = 0;
const CSSLOT_REQUIREMENTS = 2;
const CS_ADHOC = 0x2;
const CS_HASHTYPE_SHA256 = 2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CD_VERSION = 0x20400; // the first with the executable segment fields
const CD_HEADER = 88; // the CodeDirectory's fixed fields up to execSegFlags, version 0x20400
const PAGE_SHIFT = 12;
const PAGE = 1 << PAGE_SHIFT;
const HASH = 32;

const sha256 = (bytes) => createHash('sha256').update(bytes).digest();
const roundUp = (n, to) => Math.ceil(n / to) * to;

/** The load commands of a thin 64-bit little-endian Mach-O: each with its offset in the file. */
function loadCommands(file) {
  if (file.length < 32 || file.readUInt32LE(0) !== MH_MAGIC_64)
    throw new Error('not a thin 64-bit little-endian Mach-O');
  const count = file.readUInt32LE(16);
  const size = file.readUInt32LE(20);
  if (32 + size > file.length) throw new Error('the load commands run past the end of the file');
  const commands = [];
  let at = 32;
  for (let i = 0; i < count; i++) {
    const cmd = file.readUInt32LE(at);
    const cmdsize = file.readUInt32LE(at + 4);
    if (cmdsize < 8 || at + cmdsize > 32 + size) throw new Error(`load command ${i} is malformed`);
    commands.push({ cmd, at, cmdsize });
    at += cmdsize;
  }
  return commands;
}

const segname = (file, at) =>
  file
    .subarray(at + 8, at + 24)
    .toString('latin1')
    .replace(/\0+$/, '');

/**
 * What signing needs to know of `file`: its segments (__TEXT, __LINKEDIT), the existing
 * LC_CODE_SIGNATURE if any, and where the load commands may grow to (the first section's data).
 */
function layout(file) {
  const commands = loadCommands(file);
  const segments = {};
  let firstData = file.length;
  let signature;
  for (const command of commands) {
    if (command.cmd === LC_CODE_SIGNATURE) signature = command;
    if (command.cmd !== LC_SEGMENT_64) continue;
    const at = command.at;
    segments[segname(file, at)] = {
      at,
      fileoff: Number(file.readBigUInt64LE(at + 40)),
      filesize: Number(file.readBigUInt64LE(at + 48)),
    };
    for (let s = 0; s < file.readUInt32LE(at + 64); s++) {
      const section = at + 72 + s * 80;
      const offset = file.readUInt32LE(section + 48);
      // Zero-fill sections (offset 0) take no room in the file.
      if (offset !== 0 && Number(file.readBigUInt64LE(section + 40)) > 0) firstData = Math.min(firstData, offset);
    }
  }
  for (const name of ['__TEXT', '__LINKEDIT'])
    if (!segments[name]) throw new Error(`the Mach-O has no ${name} segment`);
  const linkedit = segments['__LINKEDIT'];
  for (const [name, segment] of Object.entries(segments)) {
    if (name !== '__LINKEDIT' && segment.filesize > 0 && segment.fileoff >= linkedit.fileoff)
      throw new Error(`segment ${name} lies after __LINKEDIT: the signature must be the last thing in the file`);
  }
  return { commands, segments, signature, endOfCommands: 32 + file.readUInt32LE(20), firstData };
}

/** The bytes of a signature of `identifier` for code of `codeLimit` bytes (hashed later, in place). */
function signatureSize(codeLimit, identifier, requirements) {
  const specialSlots = requirements ? CSSLOT_REQUIREMENTS : 0;
  const codeDirectory =
    CD_HEADER + Buffer.byteLength(identifier) + 1 + (specialSlots + Math.ceil(codeLimit / PAGE)) * HASH;
  const blobs = requirements ? 2 : 1;
  return 12 + blobs * 8 + codeDirectory + (requirements ? 12 : 0);
}

/**
 * `file` (a Mach-O, unchanged) signed ad hoc as `identifier`: a new Buffer. An existing signature is
 * replaced. `requirements: false` leaves out the Requirements blob, as Go's linker does (the test
 * that holds our CodeDirectory against Go's uses it); `codesign -s -` writes one.
 */
export function adhocSign(input, identifier, { requirements = true } = {}) {
  if (!identifier || identifier.includes('\0'))
    throw new Error('the identifier must be a non-empty string without NUL');
  const { segments, signature, endOfCommands, firstData } = layout(input);
  const linkedit = segments['__LINKEDIT'];
  let file;
  let commandAt;
  let end;
  if (signature) {
    // Re-signing: the old signature goes (it must be the end of __LINKEDIT and of the file).
    const dataoff = input.readUInt32LE(signature.at + 8);
    if (dataoff < linkedit.fileoff || dataoff + input.readUInt32LE(signature.at + 12) !== input.length)
      throw new Error('the existing code signature is not at the end of the file');
    commandAt = signature.at;
    end = dataoff;
    file = Buffer.from(input.subarray(0, dataoff));
  } else {
    if (endOfCommands + 16 > firstData)
      throw new Error('no room for LC_CODE_SIGNATURE between the load commands and the first section');
    end = linkedit.fileoff + linkedit.filesize;
    if (end !== input.length) throw new Error('__LINKEDIT is not the end of the file');
    commandAt = endOfCommands;
    file = Buffer.from(input);
    file.writeUInt32LE(file.readUInt32LE(16) + 1, 16);
    file.writeUInt32LE(file.readUInt32LE(20) + 16, 20);
  }
  const dataoff = roundUp(end, 16);
  const size = signatureSize(dataoff, identifier, requirements);
  file.writeUInt32LE(LC_CODE_SIGNATURE, commandAt);
  file.writeUInt32LE(16, commandAt + 4);
  file.writeUInt32LE(dataoff, commandAt + 8);
  file.writeUInt32LE(size, commandAt + 12);
  // __LINKEDIT ends with the signature; its memory size grows to cover it when it does not, in whole
  // pages of the segment alignment if it was so (Node's), else exactly (as Go's linker writes it).
  const filesize = dataoff + size - linkedit.fileoff;
  const align = file.readUInt32LE(4) === CPU_TYPE_ARM64 ? 0x4000 : 0x1000;
  file.writeBigUInt64LE(BigInt(filesize), linkedit.at + 48);
  const vmsize = Number(file.readBigUInt64LE(linkedit.at + 32));
  if (vmsize < filesize)
    file.writeBigUInt64LE(BigInt(vmsize % align === 0 ? roundUp(filesize, align) : filesize), linkedit.at + 32);

  const code = Buffer.concat([file, Buffer.alloc(dataoff - file.length)]);
  const text = segments['__TEXT'];
  const id = Buffer.from(`${identifier}\0`);
  const requirementsBlob = Buffer.alloc(12);
  requirementsBlob.writeUInt32BE(CSMAGIC_REQUIREMENTS, 0);
  requirementsBlob.writeUInt32BE(12, 4); // length; count 0
  const specialSlots = requirements ? CSSLOT_REQUIREMENTS : 0;
  const codeSlots = Math.ceil(dataoff / PAGE);
  const hashOffset = CD_HEADER + id.length + specialSlots * HASH;
  const cd = Buffer.alloc(hashOffset + codeSlots * HASH);
  cd.writeUInt32BE(CSMAGIC_CODEDIRECTORY, 0);
  cd.writeUInt32BE(cd.length, 4);
  cd.writeUInt32BE(CD_VERSION, 8);
  cd.writeUInt32BE(CS_ADHOC, 12);
  cd.writeUInt32BE(hashOffset, 16);
  cd.writeUInt32BE(CD_HEADER, 20); // identOffset
  cd.writeUInt32BE(specialSlots, 24);
  cd.writeUInt32BE(codeSlots, 28);
  cd.writeUInt32BE(dataoff, 32); // codeLimit
  cd.writeUInt8(HASH, 36);
  cd.writeUInt8(CS_HASHTYPE_SHA256, 37);
  cd.writeUInt8(0, 38); // platform
  cd.writeUInt8(PAGE_SHIFT, 39);
  // spare2, scatterOffset, teamOffset, spare3, codeLimit64: 0.
  cd.writeBigUInt64BE(BigInt(text.fileoff), 64); // execSegBase
  cd.writeBigUInt64BE(BigInt(text.filesize), 72); // execSegLimit
  cd.writeBigUInt64BE(BigInt(file.readUInt32LE(12) === MH_EXECUTE ? CS_EXECSEG_MAIN_BINARY : 0), 80);
  id.copy(cd, CD_HEADER);
  // Special slot -n lies n hashes before hashOffset: -2 is the Requirements blob, -1 (Info.plist) none.
  if (requirements) sha256(requirementsBlob).copy(cd, hashOffset - CSSLOT_REQUIREMENTS * HASH);
  for (let page = 0; page < codeSlots; page++)
    sha256(code.subarray(page * PAGE, Math.min((page + 1) * PAGE, dataoff))).copy(cd, hashOffset + page * HASH);

  const blobs = requirements
    ? [
        [CSSLOT_CODEDIRECTORY, cd],
        [CSSLOT_REQUIREMENTS, requirementsBlob],
      ]
    : [[CSSLOT_CODEDIRECTORY, cd]];
  const header = Buffer.alloc(12 + blobs.length * 8);
  header.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt32BE(blobs.length, 8);
  let offset = header.length;
  blobs.forEach(([slot, blob], i) => {
    header.writeUInt32BE(slot, 12 + i * 8);
    header.writeUInt32BE(offset, 16 + i * 8);
    offset += blob.length;
  });
  if (offset !== size) throw new Error('signature size mismatch');
  return Buffer.concat([code, header, ...blobs.map(([, blob]) => blob)]);
}

/** Signs the Mach-O at `path` in place, ad hoc, as `identifier`. */
export function adhocSignFile(path, identifier) {
  writeFileSync(path, adhocSign(readFileSync(path), identifier));
}
