// A PE (Windows executable) with no stale signature: node.exe comes Authenticode-signed, and
// injecting the SEA blob leaves the optional header's security directory pointing at where that
// signature was, bytes that are no longer it, with a checksum of the old file. Windows tools and
// scanners read that as a broken signature (osslsigncode: an error), not as an unsigned file. So
// after injection the security directory entry is zeroed and the checksum computed again.
// From the PE format (Microsoft's PE/COFF specification): e_lfanew at 0x3c, "PE\0\0", the 20-byte
// COFF header, then the optional header (magic 0x10b PE32 or 0x20b PE32+), whose CheckSum is at 64
// and whose data directories (8 bytes each, the 5th is the certificate table: a file offset and a
// size) start at 96 (PE32) or 112 (PE32+).
import { readFileSync, writeFileSync } from 'node:fs';

const SECURITY = 4;

/** The offsets a clean-up touches: the CheckSum field and the security directory entry (undefined if the file has none). */
function offsets(file) {
  if (file.length < 0x40 || file.readUInt16LE(0) !== 0x5a4d) throw new Error('not a PE: no MZ header');
  const pe = file.readUInt32LE(0x3c);
  if (pe + 24 > file.length || file.readUInt32LE(pe) !== 0x00004550) throw new Error('not a PE: no PE signature');
  const optional = pe + 24;
  const magic = file.readUInt16LE(optional);
  if (magic !== 0x10b && magic !== 0x20b) throw new Error(`not a PE: optional header magic 0x${magic.toString(16)}`);
  const [countAt, directories] = magic === 0x20b ? [optional + 108, optional + 112] : [optional + 92, optional + 96];
  const count = file.readUInt32LE(countAt);
  return { checksum: optional + 64, security: count > SECURITY ? directories + SECURITY * 8 : undefined };
}

/** The PE checksum of `file` (its CheckSum field counted as zero): the 16-bit one's-complement-style sum of the file's words, folded, plus its length. */
export function peChecksum(file) {
  const { checksum } = offsets(file);
  let sum = 0;
  const words = Math.floor(file.length / 2);
  for (let i = 0; i < words; i++) {
    if (i * 2 === checksum || i * 2 === checksum + 2) continue;
    sum += file.readUInt16LE(i * 2);
    // Fold the carry now and then: a JavaScript number stays exact far beyond this.
    if (sum > 0xffffffff) sum = (sum & 0xffff) + Math.floor(sum / 0x10000);
  }
  if (file.length % 2 === 1) sum += file[file.length - 1];
  while (sum > 0xffff) sum = (sum & 0xffff) + Math.floor(sum / 0x10000);
  return (sum + file.length) >>> 0;
}

/** `file` with an empty security directory and the right checksum (changed in place; returned). */
export function cleanPe(file) {
  const { checksum, security } = offsets(file);
  if (security !== undefined) file.fill(0, security, security + 8);
  file.writeUInt32LE(peChecksum(file), checksum);
  return file;
}

/** Cleans the PE at `path` in place. */
export function cleanPeFile(path) {
  writeFileSync(path, cleanPe(readFileSync(path)));
}
