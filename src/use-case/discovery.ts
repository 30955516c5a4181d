// OAuth 2.0 / OpenID Connect discovery: the metadata document of an issuer, read once when a config
// is made (`init oidc`), never when the plugin runs. OpenID Connect Discovery 1.0 first
// (`<issuer>/.well-known/openid-configuration`), then RFC 8414 (`/.well-known/oauth-authorization-server`
// inserted before the issuer's path, and appended after it as many servers publish it). It goes
// through the plugin's own HTTP client (deps.send: its trust, proxies and limits), bounded by the
// caller's deadline and a size far above any real document. The whole document is kept: the token
// endpoint now, the device endpoint (RFC 8628) for an interactive login's config later.
import { RequestError, ResponseError, UsageError } from '../errors.js';
import type { Deps } from './deps.js';

/** What an authorization server says of itself (the fields read here; the rest is kept as it came). */
export interface ServerMetadata {
  issuer: string;
  token_endpoint?: string;
  device_authorization_endpoint?: string;
  authorization_endpoint?: string;
  [field: string]: unknown;
}

export interface Discovered {
  metadata: ServerMetadata;
  /** The URL of the document it came from. */
  from: string;
}

export interface DiscoveryOptions {
  /** The whole discovery's deadline, ms since epoch (every URL tried shares it). */
  deadline: number;
  /** --timeout as given, named when it passes. */
  timeoutMs: number;
  /** PEM CA certificates added to the system roots, and where they came from (`caFile /path`). */
  ca?: { pem: string; from: string };
  /**
   * The issuer as a message shows it, when it is what a server gave (a token's iss, which may echo what
   * was sent): redacted in full there, while the words around it are the plugin's frame
   * (CredentialError.framed). An issuer the person or the config gave is shown as it is.
   */
  showIssuer?: (issuer: string) => string;
}

const OPENID_CONFIGURATION = '/.well-known/openid-configuration';

/** Far above any real document (a few kB), far below what could hurt. */
export const MAX_DISCOVERY_BYTES = 256 * 1024;

/** The URLs a discovery of `issuer` tries, in order. */
export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const base = `${url.origin}${path}`;
  const urls = [
    `${base}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${base}/.well-known/oauth-authorization-server`,
  ];
  return [...new Set(urls)];
}

/**
 * An issuer as discovery takes it: an https:// URL without query or fragment (OIDC Discovery §3, RFC
 * 8414 §2). Its messages are the plugin's frame (CredentialError.framed): the issuer is a flag's, or
 * shown as `show` shows what a server gave.
 */
export function checkIssuer(issuer: string, name = '--set issuer', show = (text: string) => text): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new UsageError('SET_INVALID', `${name}: expected an https:// URL, got ${show(JSON.stringify(issuer))}`, {
      framed: true,
    });
  }
  if (url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new UsageError(
      'SET_INVALID',
      `${name}: expected an https:// URL without query, fragment or user info, got ${show(JSON.stringify(issuer))}`,
      { framed: true },
    );
  }
  return issuer;
}

/**
 * The metadata of `issuer`, from the first document that answers with it. Every URL failing is exit 3
 * naming each URL and why, and what to give instead (`--set tokenUrl`).
 */
export async function discover(issuer: string, options: DiscoveryOptions, deps: Deps): Promise<Discovered> {
  const failures: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    if (deps.now() >= options.deadline) {
      failures.push(`${url}: not tried, the ${showMs(options.timeoutMs)} of --timeout had passed`);
      continue;
    }
    try {
      const metadata = await fetchDocument({ url }, issuer, options, deps);
      return { metadata, from: url };
    } catch (error) {
      if (!(error instanceof RequestError) && !(error instanceof ResponseError) && !(error instanceof DocumentProblem))
        throw error;
      failures.push(`${url}: ${reason(error.message, url, url)}`);
    }
  }
  throw new RequestError(
    'DISCOVERY_FAILED',
    `the discovery of ${issuer} failed (${failures.join('; ')}); give the token endpoint with --set tokenUrl=URL instead of discovering it`,
  );
}

class DocumentProblem extends Error {}

/**
 * The OpenID Connect document at exactly `<issuer>/.well-known/openid-configuration`, the one a
 * kube-apiserver reads (it tries no other), or why it could not be had: the plugin's frame
 * (CredentialError.framed), what the server said redacted in full where it is put in, the issuer as
 * options.showIssuer shows it.
 */
export async function openIdConfiguration(
  issuer: string,
  options: DiscoveryOptions,
  deps: Deps,
): Promise<{ metadata: ServerMetadata } | { problem: string }> {
  const url = discoveryUrls(issuer)[0]!;
  const shown = options.showIssuer
    ? `${options.showIssuer(url.slice(0, -OPENID_CONFIGURATION.length))}${OPENID_CONFIGURATION}`
    : url;
  try {
    return { metadata: await fetchDocument({ url, shown }, issuer, options, deps) };
  } catch (error) {
    if (!(error instanceof RequestError) && !(error instanceof ResponseError) && !(error instanceof DocumentProblem))
      throw error;
    // The HTTP client's errors are framed (the request's own URL as shown); any other is redacted in full.
    const framed = error instanceof DocumentProblem || error.framed;
    return { problem: `${shown}: ${reason(framed ? error.message : deps.redactor.redact(error.message), url, shown)}` };
  }
}

async function fetchDocument(
  { url, shown = url }: { url: string; shown?: string },
  issuer: string,
  options: DiscoveryOptions,
  deps: Deps,
): Promise<ServerMetadata> {
  const headers = { accept: 'application/json' };
  const response = await deps.send(
    {
      method: 'GET',
      url,
      headers,
      tls: { insecureSkipVerify: false, ...(options.ca ? { ca: options.ca.pem, caFrom: options.ca.from } : {}) },
      // The HTTP client's messages name the request's own URL as shown.
      ...(shown !== url ? { shown: { url: shown, headers } } : {}),
    },
    {
      timeoutMs: Math.max(1, options.deadline - deps.now()),
      // One attempt per URL: discovery runs once, by a person who sees the answer.
      retryLimit: 0,
      maxResponseBytes: MAX_DISCOVERY_BYTES,
      allowInsecureHTTP: false,
      deadline: options.deadline,
      wholeTimeoutMs: options.timeoutMs,
      templatedHeaders: [],
      env: deps.env,
      now: deps.now,
      random: deps.random,
      log: (line) => deps.trace(line, true),
      redact: (text) => deps.redactor.redact(text),
    },
  );
  let document: unknown;
  try {
    document = JSON.parse(response.body);
  } catch {
    // The content type is what the server said, and may echo what was sent: redacted in full where it is put in.
    const type = response.contentType !== undefined ? deps.redactor.redact(response.contentType) : 'no content type';
    throw new DocumentProblem(`answered ${response.status} with no JSON (${type}, ${response.bytes} bytes)`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new DocumentProblem('answered JSON that is not an object');
  const metadata = document as Record<string, unknown>;
  // What the document says may echo what was sent: redacted in full where it is put in.
  const said = (value: unknown) => JSON.stringify(shortText(deps.redactor.redact(textOf(value))));
  // OIDC Discovery §4.3, RFC 8414 §3.3: a document for another issuer must not be used.
  if (typeof metadata['issuer'] !== 'string' || metadata['issuer'].replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) {
    throw new DocumentProblem(
      `the document is for the issuer ${said(metadata['issuer'])}, not ${options.showIssuer?.(issuer) ?? issuer}`,
    );
  }
  for (const field of [
    'token_endpoint',
    'device_authorization_endpoint',
    'authorization_endpoint',
    'revocation_endpoint',
  ]) {
    const value = metadata[field];
    if (value !== undefined && !isHttpsUrl(value))
      throw new DocumentProblem(`its ${field} is not an https:// URL: ${said(value)}`);
  }
  return metadata as ServerMetadata;
}

function isHttpsUrl(value: unknown): value is string {
  // URL() would drop a newline or tab in it: such a value is refused, not cleaned up.
  if (typeof value !== 'string' || /[\u0000-\u0020\u007f]/.test(value)) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** A value of the server's document as text: it is no secret, but it may be anything. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** That text shown short, redacted first: a secret cut in two is no longer found. */
function shortText(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** Why one URL failed (the message of `error`), in the words of the HTTP client, for discovery rather than the token API. */
function reason(message: string, url: string, shown: string): string {
  return message
    .replaceAll(` to ${shown}`, '')
    .replaceAll(shown, 'it')
    .replaceAll(` to ${url}`, '')
    .replaceAll(url, 'it')
    .replace(/^the token API answered /, 'answered ')
    .replace(/more than maxResponseBytes \((\d+) bytes\)/, 'more than $1 bytes (a discovery document is a few kB)')
    .replace(/\bthe token API\b/g, 'the server')
    .replace(/set tls\.caFile or tls\.caData to (.+)$/, 'give --set caFile=PATH with $1');
}

function showMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
