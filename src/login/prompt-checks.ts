// What the device prompt shows a person, checked (SPEC "Interactive login"): a server that answers
// the device authorization request decides the page a person opens and the code they type, so the
// page's host is shown as the ASCII a browser resolves (an IDN homograph reads as punycode), a host
// other than the endpoint's is pointed out, and the code is a code, not a sentence.
import { domainToASCII } from 'node:url';
import { REDACTED } from '../redact/redactor.js';

/** Whether a user_code is one (RFC 8628 §6.1: short, typed by hand): 1-64 characters of printable ASCII, no space. */
export function isUserCode(value: unknown): value is string {
  return typeof value === 'string' && /^[\x21-\x7e]{1,64}$/.test(value);
}

/** The URI as a browser opens it, its host in ASCII (punycode); undefined when the host has no ASCII form. */
export function asciiUri(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  // WHATWG URL has made the host ASCII already; domainToASCII says so, and refuses what has no form.
  const host = url.hostname.startsWith('[') ? url.hostname : domainToASCII(url.hostname);
  if (host === '') return undefined;
  return url.href;
}

/**
 * The line that points out a verification page on another host than the device authorization
 * endpoint's, or undefined when the hosts are the same. Not a refusal: some issuers keep the page
 * elsewhere (microsoft.com/devicelogin for login.microsoftonline.com). `shownEndpoint`: the endpoint's
 * URL as shown (build.ts shownUrl), where a value a secret decided is [REDACTED].
 */
export function otherHostNote(
  verificationUri: string,
  endpoint: string,
  redact: (text: string) => string = (text) => text,
  shownEndpoint = endpoint,
): string | undefined {
  let page: string;
  let asked: string;
  try {
    page = new URL(verificationUri).hostname;
    asked = new URL(endpoint).hostname;
  } catch {
    return undefined;
  }
  const shown = redact(page);
  // A letter of the endpoint's host a secret decided is no text the redactor finds, and whether the
  // hosts are the same would tell which host it chose: the note is said whatever the page's host.
  const authority = /^[^:/]+:\/\/(?:[^@/?#]*@)?([^/?#]*)/.exec(shownEndpoint)?.[1] ?? '';
  if (authority.includes(REDACTED))
    return `note: that page is on ${shown}; the device authorization endpoint's address is not shown (a secret decided it): open it only if ${shown} is your identity provider's`;
  if (page === asked) return undefined;
  return `note: that page is on ${shown}, not on ${redact(asked)} (the device authorization endpoint's host): open it only if ${shown} is your identity provider's`;
}
