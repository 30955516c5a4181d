// The cache key is a hash of everything that decides which credential comes back: the fully
// rendered request (so a rotated secret or another cluster's vars misses), the TLS identity, and
// the extraction settings. Pure.
import type { ProviderConfig } from '../config/schema.js';
import type { RenderedRequest } from '../request.js';
import { sha256Hex } from '../sha256.js';

/** Bumped whenever the entry format or the key inputs change: old entries then simply miss. */
export const CACHE_FORMAT = 'webapi-credential.cache/v1';

export function cacheKey(request: RenderedRequest, config: Pick<ProviderConfig, 'paths' | 'expiryFromJWT' | 'expiryMarginMs'>): string {
  const sha = (text: string | undefined) => (text === undefined ? null : sha256Hex(text));
  const headers = Object.entries(request.headers)
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  const material = JSON.stringify([
    CACHE_FORMAT,
    request.method,
    request.url,
    headers,
    request.body ?? null,
    [sha(request.tls.ca), sha(request.tls.cert), sha(request.tls.key), request.tls.serverName ?? null, request.tls.insecureSkipVerify],
    config.paths,
    config.expiryFromJWT,
    config.expiryMarginMs,
  ]);
  return sha256Hex(material);
}
