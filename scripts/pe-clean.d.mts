/** The PE checksum of `file` (its CheckSum field counted as zero). */
export function peChecksum(file: Buffer): number;
/** `file` with an empty security directory and the right checksum (changed in place; returned). */
export function cleanPe(file: Buffer): Buffer;
/** Cleans the PE at `path` in place. */
export function cleanPeFile(path: string): void;
