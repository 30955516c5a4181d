// The helpers a template may call: the one table that parse-time checks, messages and docs read.
// Each gets plain values (strings, numbers, data) and the context of the render; none can reach
// anything the context does not hand it. Messages never quote an argument: it may be a secret.
import { readProblem } from '../errors.js';
import { HelperError } from './helper-error.js';

export interface HelperContext {
  /**
   * A file's content (the caller bounds and tracks it). `fromConfig`: the path is text of the config
   * (a relative one means the config's directory), not a value from env or vars (the current one).
   * `secretChose`: a secret chose the path (`file(env.S > "m" ? "a" : "b")`), so it is a secret too.
   */
  readFile: (path: string, fromConfig?: boolean, secretChose?: boolean) => string;
  /** The absolute path a relative one is read from, for messages. */
  pathTried?: (path: string, fromConfig?: boolean) => string;
  /** false when a secret chose the path: a message then does not name it. */
  pathShown?: boolean;
  nowMs: () => number;
  uuid: () => string;
}

export interface Helper {
  /** Fewest and most arguments. */
  arity: [number, number];
  /** Result changes from one render to the next: kept out of anything that must repeat (the cache key). */
  volatile?: boolean;
  /** Result is a secret whatever the arguments (a file's content, a signature). */
  secret?: boolean;
  /** The argument is a path (file()): not secret itself, and a relative one from env means the current directory. */
  path?: boolean;
  /** Arguments that are secret wherever they come from (a jwt() key, a basicAuth() secret). */
  secretArgs?: number[];
  /** Other texts of the result that a server may echo (the base64 part of a Basic value). */
  forms?: (result: unknown) => string[];
  /** One line for `--help`-like listings. */
  doc: string;
  call: (args: unknown[], context: HelperContext) => unknown;
}

/** Thrown by a helper for a value it cannot use; the renderer adds field and expression. */

function text(helper: string, value: unknown, position = 'its argument'): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new HelperError(
    `${helper}() takes a string as ${position}, given ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value}`,
  );
}

/** application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks of a client id and secret. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

const HELPERS: Readonly<Record<string, Helper>> = {
  urlencode: {
    arity: [1, 1],
    doc: 'percent-encode (encodeURIComponent)',
    call: ([s]) => {
      const input = text('urlencode', s);
      // encodeURIComponent throws URIError on half a surrogate pair (fromJson('"\\ud800"')): a
      // template error, not an internal one.
      if (/\p{Cs}/u.test(input))
        throw new HelperError('urlencode() was given text with a lone surrogate, which has no UTF-8 form');
      return encodeURIComponent(input);
    },
  },
  base64: {
    arity: [1, 1],
    doc: 'base64 of the UTF-8 text',
    call: ([s]) => Buffer.from(text('base64', s), 'utf8').toString('base64'),
  },
  base64url: {
    arity: [1, 1],
    doc: 'base64url of the UTF-8 text, unpadded',
    call: ([s]) => Buffer.from(text('base64url', s), 'utf8').toString('base64url'),
  },
  base64decode: {
    arity: [1, 1],
    doc: 'the UTF-8 text of base64 or base64url',
    call: ([s]) => {
      const input = text('base64decode', s).replace(/\s+/g, '');
      if (!BASE64.test(input)) throw new HelperError('base64decode() was given text that is not base64');
      return Buffer.from(input, 'base64').toString('utf8');
    },
  },
  lower: { arity: [1, 1], doc: 'lower case', call: ([s]) => text('lower', s).toLowerCase() },
  upper: { arity: [1, 1], doc: 'upper case', call: ([s]) => text('upper', s).toUpperCase() },
  trim: { arity: [1, 1], doc: 'without leading and trailing white space', call: ([s]) => text('trim', s).trim() },
  json: { arity: [1, 1], doc: 'JSON text of a value', call: ([v]) => JSON.stringify(v) },
  fromJson: {
    arity: [1, 1],
    doc: 'the value of a JSON text',
    call: ([s]) => {
      const source = text('fromJson', s);
      try {
        return JSON.parse(source);
      } catch {
        // JSON.parse quotes the input around the error; its length, or whether it is empty, tells a
        // secret's too: neither is said.
        throw new HelperError('fromJson() was given text that is not JSON');
      }
    },
  },
  file: {
    arity: [1, 1],
    secret: true,
    path: true,
    doc: "a file's content, one trailing newline trimmed (a regular file of at most 1 MiB)",
    call: ([path], context) => {
      const name = text('file', path);
      let content: string;
      try {
        content = context.readFile(name);
      } catch (error) {
        // Named by the path tried, so that a person can fix it (SPEC: file() paths are not secret).
        const shown = context.pathShown === false ? '…' : JSON.stringify(context.pathTried?.(name) ?? name);
        // `~` is the shell's: kubectl, client-go and Argo CD start the plugin without one. Not expanded
        // here (a path means what it says: relative ones resolve against the config's directory).
        const tilde =
          context.pathShown !== false && /^~(\/|$)/.test(name)
            ? `; ~ is not expanded (a shell does that, and no shell starts the plugin): write the absolute path, or file(env.HOME + "${name.slice(1)}")`
            : '';
        throw new HelperError(`file(${shown}) cannot be read: ${readProblem(error)}${tilde}`);
      }
      return content.replace(/\r?\n$/, '');
    },
  },
  basicAuth: {
    arity: [2, 2],
    secretArgs: [1],
    // A server may echo the credentials without the scheme.
    forms: (result) => [String(result).slice('Basic '.length)],
    doc: 'an HTTP Basic Authorization value, id and secret form-encoded first (RFC 6749 §2.3.1)',
    call: ([id, secret]) => {
      const pair = `${formEncode(text('basicAuth', id, 'the id'))}:${formEncode(text('basicAuth', secret, 'the secret'))}`;
      return `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    },
  },
  jwt: {
    arity: [2, 3],
    volatile: true,
    secret: true,
    secretArgs: [1],
    doc: 'a signed JWT (compact JWS) of the claims with the key; iat, exp (5 min) and jti added when absent',
    // jose (and our use of it) loads only for a config that signs.
    call: async ([claims, key, options], context) => (await import('./jwt.js')).signJwt(claims, key, options, context),
  },
  now: {
    arity: [0, 0],
    volatile: true,
    doc: 'the current unix time in seconds',
    call: (_args, context) => Math.floor(context.nowMs() / 1000),
  },
  uuid: { arity: [0, 0], volatile: true, doc: 'a random UUID v4', call: (_args, context) => context.uuid() },
};

export const HELPER_NAMES = Object.keys(HELPERS);

/** The helper of that name; own properties only (`constructor` is no helper). */
export function helperNamed(name: string): Helper | undefined {
  return Object.hasOwn(HELPERS, name) ? HELPERS[name] : undefined;
}
