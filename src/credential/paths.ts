// The JSONPath engine for one config: simple-path.ts for the paths it covers, json-p3 (loaded only
// when some path needs it) for the rest.
import type { Match } from './jsonpath.js';
import { simpleQuery, simpleSegments } from './simple-path.js';

export interface PathEngine {
  /** An error message for an invalid path, undefined for a valid one. */
  check: (path: string) => string | undefined;
  query: (path: string, document: unknown) => Match[];
}

export async function pathEngine(paths: Iterable<string>): Promise<PathEngine> {
  const needsFull = [...paths].some((path) => simpleSegments(path) === undefined);
  const full = needsFull ? await import('./jsonpath.js') : undefined;
  const fallback = () => {
    // Only reachable for a path that was not among `paths`: a bug, not a user error.
    throw new Error('json-p3 was not loaded for a path that needs it');
  };
  return {
    check: (path) => (simpleSegments(path) !== undefined ? undefined : full ? full.checkPath(path) : fallback()),
    query: (path, document) => {
      const segments = simpleSegments(path);
      if (segments !== undefined) return simpleQuery(segments, document);
      return full ? full.queryPath(path, document) : fallback();
    },
  };
}
