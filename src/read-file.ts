// The real readFile of every file a config names (the config itself, file(), tls.*File): a thin
// I/O edge that main.ts hands to the rest, and the in-process test harness uses too.
import fs from 'node:fs';

/** Config, file() and TLS files: read only as regular files of at most 1 MiB (SPEC "Network behaviour"). */
const MAX_READ_BYTES = 1024 * 1024;

/**
 * Reads a file the config names without letting it hang or flood us: opened non-blocking (a FIFO
 * gives no reader), then only a regular file of at most 1 MiB (not /dev/zero, a socket, a device).
 * Symbolic links are followed: Kubernetes mounts secrets through them.
 */
export function readBoundedFile(path: string): string {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    const refuse = (message: string, code: string) => Object.assign(new Error(message), { code, readLimit: true });
    if (!stat.isFile()) throw refuse('not a regular file', 'ENOTREG');
    if (stat.size > MAX_READ_BYTES) throw refuse('larger than 1 MiB', 'EFBIG');
    const buffer = Buffer.alloc(MAX_READ_BYTES + 1);
    let length = 0;
    for (let n = 1; n > 0 && length <= MAX_READ_BYTES; length += n) n = fs.readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_READ_BYTES) throw refuse('larger than 1 MiB', 'EFBIG');
    return buffer.toString('utf8', 0, length);
  } finally {
    fs.closeSync(fd);
  }
}

