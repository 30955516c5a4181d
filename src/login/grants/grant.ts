// What every interactive grant of a login is (SPEC "Interactive login"): a small face that
// use-case/login.ts runs without knowing which grant it is. A grant derives its own request from the
// config's token request, renders and sends it through the session, and returns the token
// endpoint's answer; the use case takes the credential out of it. The next grant is one file here
// and a line in index.ts.
import type { LoginConfig, ProviderConfig, RequestConfig } from '../../config/schema.js';
import type { RenderedRequest } from '../../request/build.js';
import type { Endpoint } from '../endpoint.js';

export type GrantName = 'device' | 'browser';
/** The token request's grant_type a login's answer comes from (the observe event and the messages name it). */
export type TokenGrant = 'device_code' | 'authorization_code' | 'refresh_token';

/**
 * Where a request goes, for its messages (the endpoint, not "the token API"), and the single-use
 * grant it carries, if any: such a request is never sent twice (request/retry.ts).
 */
export interface Sent {
  endpoint: Endpoint;
  grant?: string;
}

/** What a grant is given to run: the config's requests rendered and sent, a person's terminal, the login's bounds. */
export interface GrantSession {
  config: ProviderConfig;
  /** The grant's own request (InteractiveGrant.request), rendered now. */
  own: () => Promise<RenderedRequest>;
  /**
   * The token request rendered anew (a client assertion is single-use) with the grant's fields
   * added to its form; the caller registers their secret values first.
   */
  token: (fields: Record<string, string>) => Promise<RenderedRequest>;
  /** Sends one request to `to`; with `errorsAnswer`, an OAuth error answer (400, 401) is returned to be read. Ends on Ctrl-C. */
  post: (
    request: RenderedRequest,
    deadline: number,
    errorsAnswer: boolean,
    to: Sent,
  ) => Promise<{ status: number; document: unknown }>;
  /** Waits `ms`, or until `signal` aborts; ends on Ctrl-C (the LoginError of a cancelled login). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Throws the LoginError of a cancelled login once Ctrl-C was pressed: nothing is sent after it. */
  checkpoint: () => void;
  /** The login ends at `end` (ms): a message checked for secrets may take until then too. */
  until: (end: number) => void;
  now: () => number;
  /**
   * A line for the person at the terminal (stderr), redacted. `framed`: it is the plugin's frame
   * (CredentialError.framed), what the identity provider gave redacted in full where it is put in.
   */
  say: (line: string, framed?: boolean) => void;
  trace: (line: string) => void;
  /** Registers a value that must never be shown. */
  secret: (value: string) => void;
  redact: (text: string) => string;
  /**
   * Whether `text` holds a value read as a secret (true when it cannot be checked in time), for a
   * decision: values a secret decided are not looked for, since what the decision does would show them.
   */
  holdsSecret: (text: string) => boolean;
  /** 32 random bytes from a cryptographic source (state, nonce, PKCE verifier). */
  randomBytes: () => Uint8Array;
  /** What a browser login takes from the process; absent where none can run (a test without one). */
  browser?: BrowserSession;
}

/** One request to the loopback listener: its request line, Host and Sec-Fetch-Mode headers, nothing else. */
export interface LoopbackRequest {
  method: string;
  target: string;
  host: string | undefined;
  /** What a browser says the request is for: `navigate` for the redirect, `cors`/`no-cors` for a page's fetch. */
  fetchMode?: string | undefined;
}

/** The listener's answer: a status and a small static page. */
export interface LoopbackAnswer {
  status: number;
  body: string;
}

export interface Loopback {
  close: () => Promise<void>;
}

export interface BrowserSession {
  /** Listens on a loopback port (127.0.0.1, and ::1 where the machine has it); rejects (EADDRINUSE) when taken. */
  listen: (port: number, handle: (request: LoopbackRequest) => LoopbackAnswer) => Promise<Loopback>;
  /** The program that opens a URL here (login/open-browser.ts), or none: no display, or --no-browser. */
  opener?: string[];
  /** Runs the opener with the URL as its last argument, no shell, its output discarded; rejects when it cannot start. */
  open: (command: string[], url: string) => Promise<void>;
}

export interface InteractiveGrant {
  name: GrantName;
  /** Where its block is in the config: messages and render's headings name it. */
  root: string;
  /** The token request's grant_type of its answer. */
  tokenGrant: TokenGrant;
  /** Where a scope with openid goes, for the message of an answer without an id_token. */
  scopeField: string;
  configured: (login: LoginConfig) => boolean;
  /** How long its login may take at most (ms): the lock promises no more to a waiting terminal. */
  boundMs: (config: ProviderConfig) => number;
  /**
   * Its own request, derived from the config's token request: rendered when the config loads, so
   * that validate and render name every value it misses; render shows it.
   */
  request: (config: ProviderConfig) => RequestConfig;
  /** Its own templates as [field path, text], checked when the config loads (the inherited ones are the token request's). */
  templates: (config: ProviderConfig) => Array<[string, string]>;
  /** Refuses its own request as rendered when the grant cannot run it (exit 2): when the config loads, and before it runs. */
  check?: (own: RenderedRequest, holdsSecret: (text: string) => boolean) => void;
  /** What render shows: its own request as rendered, and the token request with its fields (secrets as their names). */
  describe: (own: RenderedRequest, token: RenderedRequest, config: ProviderConfig) => string;
  /** What validate adds to its line, if anything: where the person is sent. */
  summary?: (own: RenderedRequest, config: ProviderConfig) => string;
  /** The login itself: the token endpoint's answer (a JSON object) once the person is through. */
  run: (session: GrantSession) => Promise<Record<string, unknown>>;
}
