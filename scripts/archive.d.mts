export interface Entry {
  name: string;
  data: Buffer;
  mode: number;
}
/** A gzip-compressed ustar archive of `entries`, every entry dated `mtime` (seconds since 1970). */
export function tarGz(entries: Entry[], mtime: number): Promise<Buffer>;
/** A zip of `entries`, deflated. */
export function zip(entries: Entry[], mtime: number): Promise<Buffer>;
