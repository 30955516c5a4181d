// What osslsigncode (Debian's reader of Authenticode, as Windows tools read it) says of a PE.
import { spawnSync } from 'node:child_process';
import { OSSLSIGNCODE } from './tools.js';

/** What osslsigncode verify says of `file`: its output lines, sorted (it writes to both stdout and stderr). */
export function osslVerify(file: string): string[] {
  const result = spawnSync(OSSLSIGNCODE.path!, ['verify', '-in', file], { encoding: 'utf8' });
  return `${result.stdout}\n${result.stderr}`
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/** The lines osslsigncode prints for an unsigned PE whose checksum is right (nothing else: no warning). */
export const UNSIGNED = (checksum: number) =>
  [
    'No signature found',
    'Unable to extract existing signature',
    `PE checksum   : ${checksum.toString(16).toUpperCase().padStart(8, '0')}`,
    'Failed',
  ].sort();
