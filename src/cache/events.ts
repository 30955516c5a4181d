// What the cache did for one call, as typed events (STYLE 14): the --verbose trace prints their text,
// doctor reads their kind. A new wording changes no reader.

/** Where one call's entry lives: opaque outside the cache, handed back to inspect(). */
export interface CacheSlot {
  readonly dir: string;
  readonly key: string;
}

export type CacheEvent =
  /** The cache is not used for this call (an untrusted directory, inputs that cannot be keyed). */
  | { kind: 'off'; text: string }
  /** The call's entry is known: doctor inspects it afterwards. Not traced. */
  | { kind: 'keyed'; slot: CacheSlot; text?: undefined }
  | { kind: 'hit'; waited: boolean; text: string }
  | { kind: 'miss'; reason: string; text: string }
  | { kind: 'stored'; text: string }
  /** This call's failure is kept, to be served without a request for `forMs`. */
  | { kind: 'remembered'; forMs: number; text: string }
  /** A failure kept earlier was served instead of a request. */
  | { kind: 'recalled'; until: number; waited: boolean; text: string }
  /** The token API failed (an outage) and a credential in its margin window was served (`expiresAt`: its real expiry). */
  | { kind: 'outage'; expiresAt: number; text: string }
  /** Anything else worth a line: a lock that could not be had, an entry that could not be written. */
  | { kind: 'note'; text: string };

/** The trace line of an event and the event itself, to whoever listens. */
export function reporter(
  trace: (line: string, framed?: boolean) => void,
  observe: ((event: CacheEvent) => void) | undefined,
): (event: CacheEvent) => void {
  return (event) => {
    // The plugin's frame: an event's text holds fixed words, times, pids, codes and the cache's paths.
    if (event.text !== undefined) trace(`cache: ${event.text}`, true);
    observe?.(event);
  };
}
