// What the use cases take from the outside (main.ts builds the real ones) and the flags they read.
import type { ConfigFlags } from '../config/load.js';
import type { Redactor } from '../redact/redactor.js';
import type { CacheDeps } from '../cache/index.js';
import type { HttpOptions, HttpResponse } from '../request/http.js';
import type { RenderedRequest } from '../request/build.js';
import type { StageEvent } from './observe.js';
import type { OutputName } from '../credential/output/index.js';
import type { GrantName, Loopback, LoopbackAnswer, LoopbackRequest } from '../login/grants/index.js';

export interface Deps {
  env: Record<string, string | undefined>;
  /** A regular file of at most 1 MiB (`maxBytes` for a kubeconfig, which may hold a thousand clusters). */
  readFile: (path: string, maxBytes?: number) => string;
  stdout: (text: string) => void;
  /** One line for people; the caller adds the prefix and the newline and redacts (`framed`: as trace's). */
  warn: (line: string, framed?: boolean) => void;
  /** --verbose trace; a no-op otherwise. `framed`: the line is the plugin's own frame (CredentialError.framed), the request as shown. */
  trace: (line: string, framed?: boolean) => void;
  now: () => number;
  /**
   * When the process started (ms since epoch, on `now`'s clock): --timeout counts from there, so that
   * a start-up slowed by a busy machine is inside it (SPEC: the plugin ends within --timeout). Absent: now.
   */
  started?: number;
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
  /** A line for people without the warning's prefix (a login's prompt); redacted like every line (`framed`: as trace's). */
  say?: (line: string, framed?: boolean) => void;
  /** What an interactive login takes from the process (main.ts); absent, no login is interactive. */
  login?: LoginDeps;
}

export interface LoginDeps {
  /** Whether stdin and stderr are terminals: a person can answer, when client-go sent no exec info. */
  terminal: () => boolean;
  /** Calls `listener` on Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt: (listener: () => void) => () => void;
  /** Waits `ms`, or less when `signal` aborts (it then resolves: the caller looks at the signal). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A browser login's listener on a loopback port (login/loopback.ts); rejects (EADDRINUSE) when the port is taken. */
  listen?: (port: number, handle: (request: LoopbackRequest) => LoopbackAnswer) => Promise<Loopback>;
  /** The program that opens a URL in a browser here (login/open-browser.ts), or none. */
  opener?: (env: Record<string, string | undefined>) => string[] | undefined;
  /** Runs it with the URL as its last argument, no shell, its output discarded; rejects when it cannot start. */
  open?: (command: string[], url: string) => Promise<void>;
}

export interface RequestFlags extends ConfigFlags {
  /** The generators: an unset env value is no error, it renders as a placeholder (Prepared.envNeeded). */
  unsetEnvAsPlaceholder?: boolean;
  /**
   * validate and render: a value a secret decided is not computed, and what it would fail is not
   * checked, so that they fail or pass the same way for every value of the secret (SPEC "Templates").
   */
  withholdDecided?: boolean;
  set?: string[];
  apiVersion?: string;
}

export interface GetTokenFlags extends RequestFlags {
  output: OutputName;
  timeoutMs: number;
  /**
   * doctor: the deadline of its whole run, of which this call gets what is left; messages still
   * name --timeout as given (`5s`), not the remainder (`4999ms`).
   */
  deadline?: number;
  /** --cache / --no-cache; undefined leaves it to the config. */
  cache?: boolean;
  cacheDir?: string;
  /** The `login` command: a login now, whatever the cache holds, and whether the call is interactive. */
  login?: boolean;
  /** login --grant: the grant to run, whatever the machine offers. */
  grant?: GrantName;
  /** login --no-browser: the browser login's URL is only printed. */
  noBrowser?: boolean;
}
