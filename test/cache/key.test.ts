// cacheKey is a pure function of the rendered request and the extraction settings: everything that
// can change which credential comes back changes the key, nothing else does.
import { describe, expect, it } from 'vitest';
import { cacheKey } from '../../src/cache/key.js';
import type { RenderedRequest } from '../../src/request.js';

type Settings = Parameters<typeof cacheKey>[1];

const request: RenderedRequest = {
  method: 'POST',
  url: 'https://auth.example.com/token?aud=cluster-a',
  headers: { Authorization: 'Bearer secret-1', 'User-Agent': 'webapi-credential/0.1.0', 'Content-Type': 'application/json' },
  body: '{"client_secret":"s3cr3t"}',
  tls: { ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM', serverName: 'auth.internal', insecureSkipVerify: false },
};
const settings: Settings = { paths: { token: '$.access_token', expiresIn: '$.expires_in' }, expiryFromJWT: true, expiryMarginMs: 60_000 };
const base = cacheKey(request, settings);

const tls = (change: Partial<RenderedRequest['tls']>): RenderedRequest => ({ ...request, tls: { ...request.tls, ...change } });
const { body: _body, ...withoutBody } = request;
const { key: _key, ...tlsWithoutKey } = request.tls;

describe('cacheKey', () => {
  it('is 64 lower-case hex characters and the same for the same input', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey(structuredClone(request), structuredClone(settings))).toBe(base);
  });

  it.each<[string, RenderedRequest, Settings?]>([
    ['another method', { ...request, method: 'PUT' }],
    ['another host', { ...request, url: 'https://auth2.example.com/token?aud=cluster-a' }],
    ['another query value (another cluster)', { ...request, url: 'https://auth.example.com/token?aud=cluster-b' }],
    ['a rotated secret in a header', { ...request, headers: { ...request.headers, Authorization: 'Bearer secret-2' } }],
    ['one more header', { ...request, headers: { ...request.headers, 'X-Org': 'acme' } }],
    ['one header fewer', { ...request, headers: { Authorization: 'Bearer secret-1', 'User-Agent': 'webapi-credential/0.1.0' } }],
    ['another plugin version in the User-Agent', { ...request, headers: { ...request.headers, 'User-Agent': 'webapi-credential/0.2.0' } }],
    ['a rotated secret in the body', { ...request, body: '{"client_secret":"s3cr3t-2"}' }],
    ['no body instead of a body', withoutBody],
    ['another CA', tls({ ca: 'CA2 PEM' })],
    ['another client certificate', tls({ cert: 'CERT2 PEM' })],
    ['another client key', tls({ key: 'KEY2 PEM' })],
    ['no client key', { ...request, tls: tlsWithoutKey }],
    ['another server name', tls({ serverName: 'other.internal' })],
    ['insecureSkipVerify', tls({ insecureSkipVerify: true })],
    ['another tokenPath', request, { ...settings, paths: { ...settings.paths, token: '$.token' } }],
    ['expiryPath instead of expiresInPath', request, { ...settings, paths: { token: '$.access_token', expiry: '$.expires_in' } }],
    ['certificate paths added', request, { ...settings, paths: { ...settings.paths, clientCertificateData: '$.c', clientKeyData: '$.k' } }],
    ['expiryFromJWT off', request, { ...settings, expiryFromJWT: false }],
    ['another expiryMargin', request, { ...settings, expiryMarginMs: 30_000 }],
  ])('changes with %s', (_name, changed, changedSettings) => {
    const key = cacheKey(changed, changedSettings ?? settings);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toBe(base);
  });

  it('tells "no body" from "an empty body"', () => {
    expect(cacheKey(withoutBody, settings)).not.toBe(cacheKey({ ...withoutBody, body: '' }, settings));
  });

  it.each<[string, RenderedRequest]>([
    ['header names in another case', { ...request, headers: { authorization: 'Bearer secret-1', 'USER-AGENT': 'webapi-credential/0.1.0', 'content-type': 'application/json' } }],
    ['headers in another order', { ...request, headers: { 'Content-Type': 'application/json', 'User-Agent': 'webapi-credential/0.1.0', Authorization: 'Bearer secret-1' } }],
  ])('stays the same with %s', (_name, same) => {
    expect(cacheKey(same, settings)).toBe(base);
  });

  it('does not contain any of the request secrets', () => {
    for (const secret of ['secret-1', 's3cr3t', 'KEY PEM']) expect(base).not.toContain(secret);
  });
});
