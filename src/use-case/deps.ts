// What the use cases take from the outside (main.ts builds the real ones) and the flags they read.
import type { ConfigFlags } from '../config/load.js';
import type { Redactor } from '../redact/redactor.js';
import type { CacheDeps } from '../cache/cache.js';
import type { HttpOptions, HttpResponse } from '../request/http.js';
import type { RenderedRequest } from '../request/build.js';
import type { StageEvent } from './observe.js';

export interface Deps {
  env: Record<string, string | undefined>;
  readFile: (path: string) => string;
  stdout: (text: string) => void;
  /** One line for people; the caller adds the prefix and the newline and redacts. */
  warn: (line: string) => void;
  /** --verbose trace; a no-op otherwise. */
  trace: (line: string) => void;
  now: () => number;
  random: () => number;
  /** A random UUID v4, for uuid() and jwt()'s jti. */
  uuid: () => string;
  /** The HTTP client (request/http.ts): main.ts loads it on the first request, never on a cached credential. */
  send: (request: RenderedRequest, options: HttpOptions) => Promise<HttpResponse>;
  version: string;
  redactor: Redactor;
  cache: Omit<CacheDeps, 'trace' | 'now'> & { homedir: string };
  /** doctor's view of the stages, like `trace` for people (use-case/observe.ts); absent on a normal call. */
  observe?: (event: StageEvent) => void;
}

export interface RequestFlags extends ConfigFlags {
  /** The generators: an unset env value is no error, it renders as a placeholder (Prepared.envNeeded). */
  unsetEnvAsPlaceholder?: boolean;
  set?: string[];
  apiVersion?: string;
}

export interface GetTokenFlags extends RequestFlags {
  output: 'exec-credential' | 'token';
  timeoutMs: number;
  /**
   * doctor: the deadline of its whole run, of which this call gets what is left; messages still
   * name --timeout as given (`5s`), not the remainder (`4999ms`).
   */
  deadline?: number;
  /** --cache / --no-cache; undefined leaves it to the config. */
  cache?: boolean;
  cacheDir?: string;
}
