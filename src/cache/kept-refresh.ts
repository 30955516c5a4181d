// A refresh token that came in a 2xx answer from which no credential could be taken (SPEC
// "Interactive login"): the issuer may have rotated the old one away, so it is kept at once, though
// the fetch failed. The fetch marks its error with it; the cache, which alone writes entries, keeps it.

const KEPT = Symbol('refresh token to keep');

/** `error`, marked with the refresh token its answer held (not enumerable: never printed or serialised). */
export function keepingRefreshToken<E extends object>(error: E, token: string): E {
  Object.defineProperty(error, KEPT, { value: token, enumerable: false });
  return error;
}

/** The refresh token a failed fetch's error was marked with, if any. */
export function keptRefreshToken(error: unknown): string | undefined {
  const token = typeof error === 'object' && error !== null ? (error as { [KEPT]?: unknown })[KEPT] : undefined;
  return typeof token === 'string' && token !== '' ? token : undefined;
}
