// cache clear: remove every cached credential (and only what the cache wrote).
import { UsageError } from '../errors.js';
import { clear } from '../cache/index.js';
import { cacheDirOf } from './call-inputs.js';
import type { Deps } from './deps.js';

export function clearCache(flags: { cacheDir?: string }, deps: Deps): void {
  const dir = cacheDirOf(flags, deps);
  let removed: number;
  try {
    removed = clear(dir, { ...deps.cache, now: deps.now });
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new UsageError('CACHE_CLEAR', `cannot clear the cache in ${dir}: ${why}`, { cause: error });
  }
  deps.stdout(`removed ${removed} cached credential${removed === 1 ? '' : 's'} from ${dir}\n`);
}
