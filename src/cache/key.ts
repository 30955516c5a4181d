// The cache's keys: keyed hashes (HMAC-SHA256 with a random key kept 0600 in the cache directory),
// never a plain hash of a secret, which would let anyone who reads the directory test guesses.
// An entry's key covers everything the credential depends on: the raw inputs (config text, --set
// vars, cluster info, the cache flag, our version) and the current values of every env variable and
// file the templates read. Nothing that changes from one render to the next is in it (now(),
// uuid(), a jwt()'s iat/exp/jti, the answers of steps), so repeated and concurrent calls agree on it.
import { hmacSha256Hex } from './sha256.js';

/** Bumped whenever the entry format or the key inputs change: old entries then simply miss. */
export const CACHE_FORMAT = 'webapi-credential.cache/v5';

/** What a ref's key is made of: the raw inputs of a call (inputs.ts RawInputs) that name its config. */
export interface RefInputs {
  version: string;
  sourceKind: string;
  configText: string;
  vars: Record<string, string>;
  /** The cluster info, when the templates read `cluster` (else undefined: a fleet shares one credential). */
  cluster: Record<string, unknown> | undefined;
  /** --cache / --no-cache as given. */
  cacheFlag: boolean | undefined;
}

/** The name of the ref found from the raw inputs alone (cache/ref.ts). */
export function refKey(secret: Uint8Array, inputs: RefInputs): string {
  return hmacSha256Hex(
    secret,
    JSON.stringify([
      CACHE_FORMAT,
      'ref',
      inputs.version,
      inputs.sourceKind,
      inputs.configText,
      inputs.vars,
      inputs.cluster ?? null,
      inputs.cacheFlag ?? null,
    ]),
  );
}

/**
 * What the credential depends on besides env values and files: the config as parsed (so that a
 * reformatted file or YAML written as JSON finds the same entry), the vars, the cluster info.
 * Stored in the ref, so the fast path needs no parser to know it.
 */
export function inputsKey(
  secret: Uint8Array,
  inputs: {
    version: string;
    document: unknown;
    vars: Record<string, string>;
    cluster: Record<string, unknown> | undefined;
  },
): string {
  return hmacSha256Hex(
    secret,
    JSON.stringify([CACHE_FORMAT, 'inputs', inputs.version, inputs.document, inputs.vars, inputs.cluster ?? null]),
  );
}

/** The entry's key: the inputs plus the values the templates read (dependencyDigest). */
export function entryKey(secret: Uint8Array, inputs: string, dependencies: string): string {
  return hmacSha256Hex(secret, JSON.stringify([CACHE_FORMAT, 'entry', inputs, dependencies]));
}
