// Which proxy, if any, a request to a URL goes through: the proxy variables read the way curl reads
// them. Node 24's https.Agent can tunnel through CONNECT when given `proxyEnv`, but its NO_PROXY
// matching is not curl's (no CIDR blocks, `example.com` does not cover `api.example.com`, a proxy
// URL without a scheme is ignored), so the decision is made here and the Agent is handed a proxy or
// none. Pure: the environment is a parameter.
import { isIPv4, isIPv6 } from 'node:net';
import { UsageError } from '../errors.js';

export interface ProxyChoice {
  /** The proxy to tunnel through, credentials included; undefined to connect directly. */
  proxy: URL | undefined;
  /** The variable the proxy came from (`HTTPS_PROXY`, `https_proxy`…), when one is set. */
  variable: string | undefined;
  /** Why a configured proxy is not used, e.g. `NO_PROXY entry "localhost"`. */
  bypass: string | undefined;
}

// Lower case first, as curl reads them. HTTP_PROXY upper case is honoured too (SPEC): curl skips it
// because of httpoxy, a CGI problem that an exec plugin does not have.
const PROXY_VARIABLES = {
  'https:': ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'],
  'http:': ['http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'],
} as const;

export function chooseProxy(target: URL, env: Record<string, string | undefined>): ProxyChoice {
  const names = target.protocol === 'http:' ? PROXY_VARIABLES['http:'] : PROXY_VARIABLES['https:'];
  const variable = names.find((name) => (env[name] ?? '').trim() !== '');
  if (variable === undefined) return { proxy: undefined, variable: undefined, bypass: undefined };
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY']);
  const entry = noProxy === undefined ? undefined : bypassEntry(target, noProxy.value);
  if (entry !== undefined)
    return { proxy: undefined, variable, bypass: `${noProxy!.name} entry ${JSON.stringify(entry)}` };
  return { proxy: parseProxyUrl(variable, env[variable]!.trim()), variable, bypass: undefined };
}

function firstSet(
  env: Record<string, string | undefined>,
  names: string[],
): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { name, value };
  }
  return undefined;
}

/** A proxy URL as curl takes it: no scheme means http://, no port means 1080 (443 for https://). */
export function parseProxyUrl(variable: string, value: string): URL {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    // The value may hold a password: it is not shown.
    throw new UsageError('PROXY_INVALID', `${variable} is not a proxy URL; expected http://[user:password@]host:port`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      'PROXY_INVALID',
      `${variable} names a ${url.protocol}// proxy; only http:// and https:// proxies (CONNECT) are supported`,
    );
  }
  if (url.hostname === '')
    throw new UsageError('PROXY_INVALID', `${variable} is not a proxy URL; expected http://[user:password@]host:port`);
  try {
    // Node decodes them for the Proxy-Authorization header, and would throw from inside the Agent.
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new UsageError('PROXY_INVALID', `${variable} has a user or password with a bad %-escape; percent-encode it`);
  }
  const authority = withScheme
    .slice(withScheme.indexOf('://') + 3)
    .split(/[/?#]/)[0]!
    .replace(/^.*@/, '');
  if (!/:\d+$/.test(authority)) url.port = url.protocol === 'https:' ? '443' : '1080';
  return url;
}

/** The proxy URL as messages show it: the user and password replaced. */
export function showProxy(proxy: URL): string {
  const shown = new URL(proxy.href);
  const hadCredentials = shown.username !== '' || shown.password !== '';
  shown.username = '';
  shown.password = '';
  const text = shown.href.replace(/\/$/, '');
  return hadCredentials ? text.replace('://', '://[REDACTED]@') : text;
}

/** The secret parts of a proxy URL, in the forms they may appear: raw (percent-encoded) and decoded. */
export function proxySecrets(proxy: URL): string[] {
  if (proxy.password === '') return [];
  const forms = [
    proxy.password,
    safeDecode(proxy.password),
    `${proxy.username}:${proxy.password}`,
    `${safeDecode(proxy.username)}:${safeDecode(proxy.password)}`,
  ];
  return [...new Set(forms)];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The NO_PROXY entry that sends `target` around the proxy, or undefined. curl's rules: entries split
 * by commas and blanks; `*` alone bypasses everything; a name matches itself and its subdomains, a
 * leading or trailing dot ignored; an IP address or CIDR block matches an IP host. Two additions
 * that Go, Node and most proxies' users expect: `*.example.com` is `.example.com`, and an entry may
 * carry a port (`host:8443`, `10.0.0.1:8443`, `[::1]:8443`) to bypass only that port.
 */
export function bypassEntry(target: URL, noProxy: string): string | undefined {
  const entries = noProxy.split(/[\s,]+/).filter((e) => e !== '');
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port !== '' ? Number(target.port) : target.protocol === 'http:' ? 80 : 443;
  const hostIp = parseIp(host);
  const name = host.replace(/\.$/, '');
  for (const raw of entries) {
    if (raw === '*') return raw;
    const { pattern, port: entryPort } = splitPort(raw.toLowerCase());
    if (entryPort !== undefined && entryPort !== port) continue;
    if (hostIp !== undefined) {
      if (ipMatches(hostIp, pattern)) return raw;
      continue;
    }
    let domain = pattern.replace(/\.$/, '');
    if (domain.startsWith('*.')) domain = domain.slice(1);
    if (domain.startsWith('.')) domain = domain.slice(1);
    if (domain === '') continue;
    if (name === domain || name.endsWith(`.${domain}`)) return raw;
  }
  return undefined;
}

function splitPort(entry: string): { pattern: string; port: number | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { pattern: bracketed[1]!, port: bracketed[2] !== undefined ? Number(bracketed[2]) : undefined };
  // A bare IPv6 address (or block) is full of colons: it has no port.
  if (entry.split(':').length > 2) return { pattern: entry, port: undefined };
  const withPort = /^(.*):(\d+)$/.exec(entry);
  return withPort ? { pattern: withPort[1]!, port: Number(withPort[2]) } : { pattern: entry, port: undefined };
}

interface Ip {
  bits: 32 | 128;
  value: bigint;
}

function ipMatches(host: Ip, pattern: string): boolean {
  const slash = pattern.indexOf('/');
  const address = parseIp(slash === -1 ? pattern : pattern.slice(0, slash));
  if (address === undefined || address.bits !== host.bits) return false;
  const prefix =
    slash === -1 ? address.bits : /^\d{1,3}$/.test(pattern.slice(slash + 1)) ? Number(pattern.slice(slash + 1)) : -1;
  if (prefix < 0 || prefix > address.bits) return false;
  const shift = BigInt(address.bits - prefix);
  return host.value >> shift === address.value >> shift;
}

export function parseIp(text: string): Ip | undefined {
  if (isIPv4(text))
    return { bits: 32, value: text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n) };
  if (!isIPv6(text)) return undefined;
  let groups = text;
  // An IPv4 tail (::ffff:10.0.0.1) is two more 16-bit groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups);
  if (v4) {
    const n = parseIp(v4[1]!)!.value;
    groups = groups.slice(0, -v4[1]!.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = groups.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const all =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return { bits: 128, value: all.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n) };
}
