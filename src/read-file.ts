// The real readFile of every file a config names (the config itself, file(), tls.*File): a thin
// I/O edge that main.ts hands to the rest, and the in-process test harness uses too.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** Config, file() and TLS files: read only as regular files of at most 1 MiB (SPEC "Network behaviour"). */
const MAX_READ_BYTES = 1024 * 1024;

const refuse = (message: string, code: string) => Object.assign(new Error(message), { code, readLimit: true });

/**
 * Reads a file the config names without letting it hang, flood us or act on anything: only a
 * regular file of at most 1 MiB (not /dev/zero, a socket, a device, a FIFO), and that is decided by
 * stat(2) before any open(2). Opening is itself an act: it completes the open of a writer blocked on
 * a FIFO (another user's process would go on), and some devices do things when opened. The open
 * is still non-blocking and checked again on the descriptor, for a path swapped in between.
 * Symbolic links are followed: Kubernetes mounts secrets through them.
 */
export function readBoundedFile(path: string, maxBytes = MAX_READ_BYTES): string {
  const tooLarge = `larger than ${maxBytes / (1024 * 1024)} MiB`;
  const named = statSync(path);
  if (!named.isFile()) throw refuse('not a regular file', 'ENOTREG');
  if (named.size > maxBytes) throw refuse(tooLarge, 'EFBIG');
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.ino !== named.ino || stat.dev !== named.dev)
      throw refuse('not a regular file', 'ENOTREG');
    if (stat.size > maxBytes) throw refuse(tooLarge, 'EFBIG');
    // Sized to the file (one byte more shows a file that grew since fstat): a cached credential's
    // fast path reads its dependencies with this, and a 1 MiB buffer each cost it milliseconds.
    let buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw refuse(tooLarge, 'EFBIG');
      if (length === buffer.length)
        buffer = Buffer.concat([
          buffer,
          Buffer.allocUnsafe(Math.min(buffer.length, maxBytes + 1 - buffer.length) || 1),
        ]);
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}
