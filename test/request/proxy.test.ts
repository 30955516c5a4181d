// Proxy or not, for a URL and an environment: the rules of curl, plus ports and `*.` entries.
import { describe, expect, it } from 'vitest';
import { bypassEntry, chooseProxy, parseIp, parseProxyUrl, proxySecrets, showProxy } from '../../src/request/proxy.js';
import { UsageError } from '../../src/errors.js';

const choose = (url: string, env: Record<string, string>) => {
  const choice = chooseProxy(new URL(url), env);
  return { proxy: choice.proxy?.href, variable: choice.variable, bypass: choice.bypass };
};

describe('chooseProxy', () => {
  it.each<
    [
      string,
      string,
      Record<string, string>,
      { proxy: string | undefined; variable: string | undefined; bypass: string | undefined },
    ]
  >([
    [
      'no variable means no proxy',
      'https://api.example/',
      {},
      { proxy: undefined, variable: undefined, bypass: undefined },
    ],
    [
      'HTTPS_PROXY for https',
      'https://api.example/',
      { HTTPS_PROXY: 'http://proxy:3128' },
      { proxy: 'http://proxy:3128/', variable: 'HTTPS_PROXY', bypass: undefined },
    ],
    [
      'https_proxy before HTTPS_PROXY',
      'https://api.example/',
      { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2' },
      { proxy: 'http://lower:2/', variable: 'https_proxy', bypass: undefined },
    ],
    [
      'an empty https_proxy counts as unset',
      'https://api.example/',
      { https_proxy: ' ', HTTPS_PROXY: 'http://upper:1' },
      { proxy: 'http://upper:1/', variable: 'HTTPS_PROXY', bypass: undefined },
    ],
    [
      'HTTP_PROXY is not for https',
      'https://api.example/',
      { HTTP_PROXY: 'http://proxy:3128' },
      { proxy: undefined, variable: undefined, bypass: undefined },
    ],
    [
      'ALL_PROXY after the https variables',
      'https://api.example/',
      { ALL_PROXY: 'http://all:1' },
      { proxy: 'http://all:1/', variable: 'ALL_PROXY', bypass: undefined },
    ],
    [
      'all_proxy before ALL_PROXY',
      'https://api.example/',
      { ALL_PROXY: 'http://upper:1', all_proxy: 'http://lower:2' },
      { proxy: 'http://lower:2/', variable: 'all_proxy', bypass: undefined },
    ],
    [
      'HTTPS_PROXY before all_proxy',
      'https://api.example/',
      { all_proxy: 'http://all:1', HTTPS_PROXY: 'http://https:2' },
      { proxy: 'http://https:2/', variable: 'HTTPS_PROXY', bypass: undefined },
    ],
    [
      'HTTP_PROXY for http',
      'http://api.example/',
      { HTTP_PROXY: 'http://proxy:3128', HTTPS_PROXY: 'http://other:1' },
      { proxy: 'http://proxy:3128/', variable: 'HTTP_PROXY', bypass: undefined },
    ],
    [
      'http_proxy before HTTP_PROXY',
      'http://api.example/',
      { HTTP_PROXY: 'http://upper:1', http_proxy: 'http://lower:2' },
      { proxy: 'http://lower:2/', variable: 'http_proxy', bypass: undefined },
    ],
    [
      'a NO_PROXY match',
      'https://api.example/',
      { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'example' },
      { proxy: undefined, variable: 'HTTPS_PROXY', bypass: 'NO_PROXY entry "example"' },
    ],
    [
      'no_proxy before NO_PROXY',
      'https://api.example/',
      { HTTPS_PROXY: 'http://p:1', no_proxy: 'other', NO_PROXY: 'example' },
      { proxy: 'http://p:1/', variable: 'HTTPS_PROXY', bypass: undefined },
    ],
    [
      'an empty no_proxy counts as unset',
      'https://api.example/',
      { HTTPS_PROXY: 'http://p:1', no_proxy: '', NO_PROXY: 'example' },
      { proxy: undefined, variable: 'HTTPS_PROXY', bypass: 'NO_PROXY entry "example"' },
    ],
    [
      'NO_PROXY without a proxy changes nothing',
      'https://api.example/',
      { NO_PROXY: '*' },
      { proxy: undefined, variable: undefined, bypass: undefined },
    ],
  ])('%s', (_name, url, env, expected) => {
    expect(choose(url, env)).toEqual(expected);
  });
});

describe('parseProxyUrl', () => {
  it.each<[string, string, string]>([
    ['a full URL', 'http://proxy.corp:3128', 'http://proxy.corp:3128/'],
    ['no scheme means http://', 'proxy.corp:3128', 'http://proxy.corp:3128/'],
    ['no port means 1080, as curl', 'http://proxy.corp', 'http://proxy.corp:1080/'],
    ['no scheme and no port', 'proxy.corp', 'http://proxy.corp:1080/'],
    ['an explicit :80 stays 80', 'http://proxy.corp:80', 'http://proxy.corp/'],
    ['https:// keeps 443 by default', 'https://proxy.corp', 'https://proxy.corp/'],
    [
      'credentials are kept for the Proxy-Authorization header',
      'http://u:p%40ss@proxy:8080',
      'http://u:p%40ss@proxy:8080/',
    ],
    ['an IPv6 proxy', 'http://[::1]:3128', 'http://[::1]:3128/'],
    ['an IPv6 proxy without a port', 'http://[::1]', 'http://[::1]:1080/'],
  ])('reads %s', (_name, value, href) => {
    expect(parseProxyUrl('HTTPS_PROXY', value).href).toBe(href);
  });

  it.each<[string, string, string]>([
    [
      'a socks proxy',
      'socks5://u:secret-1@h:1080',
      'HTTPS_PROXY names a socks5:// proxy; only http:// and https:// proxies (CONNECT) are supported',
    ],
    [
      'something that is not a URL',
      'http://u:secret-1@[nope',
      'HTTPS_PROXY is not a proxy URL; expected http://[user:password@]host:port',
    ],
    ['a URL without a host', 'http://', 'HTTPS_PROXY is not a proxy URL; expected http://[user:password@]host:port'],
    [
      'a password with a bad %-escape',
      'http://u:%E0%A4%A-secret-1@h:1',
      'HTTPS_PROXY has a user or password with a bad %-escape; percent-encode it',
    ],
  ])('refuses %s with a UsageError that does not show the value', (_name, value, message) => {
    let error: unknown;
    try {
      parseProxyUrl('HTTPS_PROXY', value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(message);
    expect((error as Error).message).not.toContain('secret-1');
  });
});

describe('showProxy and proxySecrets', () => {
  it('replaces the user and password with [REDACTED] and drops the trailing slash', () => {
    expect(showProxy(new URL('http://alice:pw-123456@proxy:3128/'))).toBe('http://[REDACTED]@proxy:3128');
    expect(showProxy(new URL('http://alice@proxy:3128/'))).toBe('http://[REDACTED]@proxy:3128');
    expect(showProxy(new URL('http://proxy:3128/'))).toBe('http://proxy:3128');
  });

  it('lists the password raw and decoded, and the user:password pair', () => {
    expect(proxySecrets(new URL('http://al%20ice:p%40ss-word@proxy:3128'))).toEqual([
      'p%40ss-word',
      'p@ss-word',
      'al%20ice:p%40ss-word',
      'al ice:p@ss-word',
    ]);
    expect(proxySecrets(new URL('http://alice:plain-pw@proxy:3128'))).toEqual(['plain-pw', 'alice:plain-pw']);
    expect(proxySecrets(new URL('http://alice@proxy:3128'))).toEqual([]);
  });
});

describe('bypassEntry', () => {
  it.each<[string, string, string | undefined]>([
    // Names: the name itself and its subdomains, a leading or trailing dot ignored, case-insensitive.
    ['https://example.com/', 'example.com', 'example.com'],
    ['https://api.example.com/', 'example.com', 'example.com'],
    ['https://a.b.example.com/', '.example.com', '.example.com'],
    ['https://example.com/', '.example.com', '.example.com'],
    ['https://api.example.com/', '*.example.com', '*.example.com'],
    ['https://API.Example.COM/', 'example.com', 'example.com'],
    ['https://api.example.com./', 'example.com', 'example.com'],
    ['https://api.example.com/', 'example.com.', 'example.com.'],
    ['https://notexample.com/', 'example.com', undefined],
    ['https://example.com.evil/', 'example.com', undefined],
    ['https://example.com/', 'api.example.com', undefined],
    ['https://example.com/', '.', undefined],
    // Lists: commas, blanks, both, and empty entries.
    ['https://b.test/', 'a.test,b.test', 'b.test'],
    ['https://b.test/', ' a.test ,  b.test ', 'b.test'],
    ['https://b.test/', 'a.test b.test', 'b.test'],
    ['https://b.test/', ',,a.test,,', undefined],
    ['https://b.test/', '', undefined],
    // `*` alone, or as one entry of a list.
    ['https://anything/', '*', '*'],
    ['https://anything/', 'a.test, *', '*'],
    // Ports: only the port named, the scheme's default when the URL has none.
    ['https://example.com:8443/', 'example.com:8443', 'example.com:8443'],
    ['https://example.com:8443/', 'example.com:443', undefined],
    ['https://example.com/', 'example.com:443', 'example.com:443'],
    ['http://example.com/', 'example.com:80', 'example.com:80'],
    ['https://example.com/', 'example.com:80', undefined],
    ['https://api.example.com:8443/', '.example.com:8443', '.example.com:8443'],
    // IPv4 addresses and CIDR blocks, for IP hosts only.
    ['https://10.1.2.3/', '10.1.2.3', '10.1.2.3'],
    ['https://10.1.2.3/', '10.0.0.0/8', '10.0.0.0/8'],
    ['https://10.1.2.3/', '10.1.2.0/24', '10.1.2.0/24'],
    ['https://10.1.3.3/', '10.1.2.0/24', undefined],
    ['https://10.1.2.3/', '10.1.2.3/32', '10.1.2.3/32'],
    ['https://10.1.2.3/', '0.0.0.0/0', '0.0.0.0/0'],
    ['https://10.1.2.3:8443/', '10.1.2.3:8443', '10.1.2.3:8443'],
    ['https://10.1.2.3:8443/', '10.1.2.3:443', undefined],
    ['https://10.1.2.3/', '10.1.2.3/33', undefined],
    ['https://10.1.2.3/', '10.1.2.3/x', undefined],
    ['https://10.1.2.3/', '10.1', undefined],
    ['https://10.1.2.3/', '.2.3', undefined],
    ['https://localhost/', '127.0.0.0/8', undefined],
    ['https://127.0.0.1/', 'localhost', undefined],
    // IPv6 addresses and blocks, with or without brackets; never an IPv4 entry.
    ['https://[::1]/', '::1', '::1'],
    ['https://[::1]/', '[::1]', '[::1]'],
    ['https://[::1]:8443/', '[::1]:8443', '[::1]:8443'],
    ['https://[::1]:8443/', '[::1]:443', undefined],
    ['https://[2001:db8::5]/', '2001:db8::/32', '2001:db8::/32'],
    ['https://[2001:db9::5]/', '2001:db8::/32', undefined],
    ['https://[2001:db8:0:0:0:0:0:5]/', '2001:db8::5', '2001:db8::5'],
    ['https://[::ffff:10.0.0.1]/', '::ffff:10.0.0.0/120', '::ffff:10.0.0.0/120'],
    ['https://[::1]/', '0.0.0.0/0', undefined],
  ])('%s with NO_PROXY=%j gives %j', (url, noProxy, expected) => {
    expect(bypassEntry(new URL(url), noProxy)).toBe(expected);
  });
});

describe('parseIp', () => {
  it.each<[string, { bits: number; value: bigint } | undefined]>([
    ['10.0.0.1', { bits: 32, value: 0x0a000001n }],
    ['255.255.255.255', { bits: 32, value: 0xffffffffn }],
    ['::', { bits: 128, value: 0n }],
    ['::1', { bits: 128, value: 1n }],
    ['1::', { bits: 128, value: 1n << 112n }],
    ['2001:db8::ff00:42:8329', { bits: 128, value: 0x20010db8000000000000ff0000428329n }],
    ['::ffff:192.0.2.1', { bits: 128, value: 0xffffc0000201n }],
    ['example.com', undefined],
    ['10.0.0', undefined],
    ['1:2:3:4:5:6:7:8:9', undefined],
  ])('reads %s', (text, expected) => {
    expect(parseIp(text)).toEqual(expected);
  });
});
