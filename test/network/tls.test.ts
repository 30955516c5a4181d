// TLS cases that test/integration/tls.test.ts leaves out: more certificate failures, CA bundles in
// the shapes people paste them, and TLS material that is wrong in a way we can tell before
// connecting (exit 2, with the field, before any request).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TokenApiOptions } from '../helpers/token-api.js';
import { makeMorePki } from './more-pki.js';
import { ALL_SECRETS, TOKEN_BODY, answer, apis, call, config, expectFailure, expectSuccess, pki } from './support.js';

const more = makeMorePki();
const startApi = apis();
const issueToken = (options?: TokenApiOptions) => startApi((_req, res) => answer(res, 200, TOKEN_BODY), options);
const base64 = (text: string) => Buffer.from(text).toString('base64');
const wrap = (text: string, width: number) => text.match(new RegExp(`.{1,${width}}`, 'g'))!.join('\n');
const keySecrets = [...ALL_SECRETS, pki.client.key.split('\n')[1]!, pki.server.key.split('\n')[1]!];

describe.concurrent('server certificates', () => {
  it('says a self-signed server certificate must be trusted explicitly', async () => {
    const api = await issueToken({ serverCert: more.selfSigned });
    expectFailure(
      await call(config(`${api.url}/token`)),
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate is self-signed (CN=localhost), not among the trusted CAs (the system roots and tls.caFile ${pki.ca.certFile}); put it in tls.caFile (DEPTH_ZERO_SELF_SIGNED_CERT)`,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('trusts a self-signed server certificate given as its own tls.caData', async () => {
    const api = await issueToken({ serverCert: more.selfSigned });
    expectSuccess(await call(config(`${api.url}/token`, { tls: { caData: more.selfSigned.cert } })));
  });

  it('says a certificate that is not valid yet points at the clock', async () => {
    const api = await issueToken({ serverCert: more.notYetValid });
    expectFailure(
      await call(config(`${api.url}/token`)),
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate is not valid yet (check this machine's clock) (CERT_NOT_YET_VALID)`,
    );
  });
});

describe.concurrent('CA bundles as people paste them', () => {
  it.each([
    { shape: 'a bundle of two CAs, ours second', caData: () => pki.otherCa.cert + pki.ca.cert },
    { shape: 'PEM with CRLF line ends', caData: () => pki.ca.cert.replace(/\n/g, '\r\n') },
    { shape: 'PEM after a byte-order mark and a comment line', caData: () => `\ufeff# issued by ops\n${pki.ca.cert}` },
    { shape: 'base64 of PEM on one line', caData: () => base64(pki.ca.cert) },
    {
      shape: 'base64 of PEM wrapped at 76 columns, as base64(1) prints it',
      caData: () => wrap(base64(pki.ca.cert), 76) + '\n',
    },
    { shape: 'base64 of a two-CA bundle', caData: () => base64(pki.otherCa.cert + pki.ca.cert) },
  ])('verifies the server against tls.caData given as $shape', async ({ caData }) => {
    const api = await issueToken();
    expectSuccess(await call(config(`${api.url}/token`, { tls: { caData: caData() } })));
  });
});

describe.concurrent('TLS material that cannot work fails with exit 2 before any request', () => {
  const corrupt = pki.ca.cert.replace(/\n[A-Za-z0-9+/]{10}/, '\nAAAAAAAAAA');
  it.each([
    {
      what: 'a CA block whose content is not a certificate',
      tls: () => ({ caData: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n' }),
      message: 'webAPIProviderConfig.tls.caData: certificate 1 of 1 is not a valid X.509 certificate',
    },
    {
      what: 'a bundle whose second certificate is corrupt',
      tls: () => ({ caData: pki.otherCa.cert + corrupt }),
      message: 'webAPIProviderConfig.tls.caData: certificate 2 of 2 is not a valid X.509 certificate',
    },
    {
      what: 'a caFile that holds a private key',
      tls: () => ({ caFile: pki.ca.keyFile }),
      message: 'webAPIProviderConfig.tls.caFile: holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
    },
    {
      what: 'a client key that does not belong to the certificate',
      tls: () => ({ caFile: pki.ca.certFile, certFile: pki.client.certFile, keyFile: pki.server.keyFile }),
      message:
        'webAPIProviderConfig.tls.keyFile: the private key does not belong to the certificate in webAPIProviderConfig.tls.certFile',
    },
    {
      what: 'an encrypted client key',
      tls: () => ({ caFile: pki.ca.certFile, certFile: pki.client.certFile, keyFile: more.encryptedClientKeyFile }),
      message:
        'webAPIProviderConfig.tls.keyFile: the private key is encrypted; decrypt it (openssl pkey -in key.pem -out plain.pem)',
    },
    {
      what: 'a keyData that holds a certificate',
      tls: () => ({ caFile: pki.ca.certFile, certData: pki.client.cert, keyData: pki.client.cert }),
      message: 'webAPIProviderConfig.tls.keyData: is not a readable PEM private key',
    },
    {
      what: 'a certData that holds a key',
      tls: () => ({ caFile: pki.ca.certFile, certData: base64(pki.client.key), keyData: pki.client.key }),
      message: 'webAPIProviderConfig.tls.certData: holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
    },
  ])('fails on $what, without showing any key', async ({ tls, message }) => {
    const api = await issueToken({ mutualTls: true });
    expectFailure(await call(config(`${api.url}/token`, { tls: tls() })), 2, message, keySecrets);
    expect(api.requests).toHaveLength(0);
  });

  it('reports the same problem from validate, which makes no request', async () => {
    const result = await call(config('https://token.example/token', { tls: { caFile: pki.ca.keyFile } }), ['validate']);
    expectFailure(
      result,
      2,
      'webAPIProviderConfig.tls.caFile: holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
      keySecrets,
    );
  });
});

describe.concurrent('client certificates', () => {
  it('names an expired client certificate as the likely reason the server hung up', async () => {
    const api = await issueToken({ mutualTls: true });
    const tls = { caFile: pki.ca.certFile, certFile: more.expiredClient.certFile, keyFile: more.expiredClient.keyFile };
    const result = await call(config(`${api.url}/token`, { tls, retry: { limit: 0 } }));
    expectFailure(
      result,
      3,
      `connection to ${api.url}/token reset by the server (ECONNRESET); the client certificate expired at 2020-01-02T00:00:00.000Z: renew it`,
      [...ALL_SECRETS, readFileSync(more.expiredClient.keyFile, 'utf8').split('\n')[1]!],
    );
    expect(api.requests).toHaveLength(0);
  });
});
