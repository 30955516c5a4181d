/** `input` (a thin 64-bit Mach-O) signed ad hoc as `identifier`; `requirements: false` as Go's linker signs. */
export function adhocSign(input: Buffer, identifier: string, options?: { requirements?: boolean }): Buffer;
/** Signs the Mach-O at `path` in place. */
export function adhocSignFile(path: string, identifier: string): void;
