// TLS against real HTTPS servers made with the test PKI: CA sources, mutual TLS, serverName,
// certificate failures, insecureSkipVerify and plain http.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json, type TokenApiOptions } from '../helpers/token-api.js';
import {
  PREFIX,
  SECRET,
  SECRET_ENV,
  allSecrets,
  basic,
  execCredential,
  expectFailure,
  expectSuccess,
  provider,
  tokenApis,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const issueToken = (options?: TokenApiOptions) =>
  startApi((_req, res) => json(res, 200, { access_token: SECRET.token }), options);
const base64 = (text: string) => Buffer.from(text).toString('base64');
/** The client key in full and one line of its body: neither may appear in any output. */
const clientKeySecrets = allSecrets([pki.client.key, pki.client.key.split('\n')[1]!, base64(pki.client.key)]);
const TOKEN_CREDENTIAL = execCredential({ token: SECRET.token });
const INSECURE_WARNING = `${PREFIX}warning: tls.insecureSkipVerify is set: the token API is not authenticated and the credential can be stolen in transit\n`;

const run = (config: Record<string, unknown>) => runCli(['--config-inline', provider(config)], { env: SECRET_ENV });

describe.concurrent('trusting the token API', () => {
  it.each([
    { source: 'tls.caFile', tls: () => ({ caFile: pki.ca.certFile }) },
    { source: 'tls.caData as PEM', tls: () => ({ caData: pki.ca.cert }) },
    { source: 'tls.caData as base64 of PEM', tls: () => ({ caData: base64(pki.ca.cert) }) },
  ])('verifies the server against the CA from $source', async ({ tls }) => {
    const api = await issueToken();
    expectSuccess(await run(basic(`${api.url}/token`, { tls: tls() })), TOKEN_CREDENTIAL);
    expect(api.requests).toHaveLength(1);
  });

  it('takes tls.caData from a template: the CA client-go sends for the cluster', async () => {
    const api = await issueToken();
    const execInfo = {
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1',
      spec: {
        interactive: false,
        cluster: { server: 'https://k8s.example.com', 'certificate-authority-data': base64(pki.ca.cert) },
      },
    };
    const config = provider(
      basic(`${api.url}/token`, { tls: { caData: "{{ cluster['certificate-authority-data'] }}" } }),
    );
    const result = await runCli(['--config-inline', config], {
      env: { ...SECRET_ENV, KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) },
    });
    expectSuccess(result, execCredential({ token: SECRET.token }, 'client.authentication.k8s.io/v1'));
    const withoutCluster = await run(
      basic(`${api.url}/token`, { tls: { caData: "{{ cluster['certificate-authority-data'] }}" } }),
    );
    expect(withoutCluster.code).toBe(2);
    expect(withoutCluster.stderr).toContain('webAPIProviderConfig.tls.caData: ');
  });

  it('adds tls.caFile to the system roots instead of replacing them', async () => {
    // The "system" roots here are Node's plus NODE_EXTRA_CA_CERTS, read at start-up (the single
    // binary too): a server signed by that extra CA must still verify while tls.caFile names another.
    const api = await issueToken({ serverCert: pki.untrustedServer });
    const result = await runCli(
      ['--config-inline', provider(basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile } }))],
      {
        env: { ...SECRET_ENV, NODE_EXTRA_CA_CERTS: pki.otherCa.certFile },
      },
    );
    expectSuccess(result, TOKEN_CREDENTIAL);
    const withoutRoots = await run(basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile } }));
    expect(withoutRoots.code).toBe(3);
  });

  it('connects to 127.0.0.1 and verifies a certificate for another name given as tls.serverName', async () => {
    const api = await issueToken({ serverCert: pki.wrongHost });
    const result = await run(
      basic(`https://127.0.0.1:${api.port}/token`, {
        tls: { caFile: pki.ca.certFile, serverName: 'elsewhere.example' },
      }),
    );
    expectSuccess(result, TOKEN_CREDENTIAL);
    expect(api.requests[0]!.headers['host']).toBe(`127.0.0.1:${api.port}`);
  });

  it('fails with exit 3 on a certificate that is not signed by a trusted CA', async () => {
    const api = await issueToken();
    const result = await run(basic(`${api.url}/token`));
    expectFailure(
      result,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate's issuer CN=ca is not among the trusted CAs (the system roots); set tls.caFile or tls.caData to that CA's certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('fails with exit 3 on a certificate from a CA other than the configured one', async () => {
    const api = await issueToken({ serverCert: pki.untrustedServer });
    const result = await run(basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile } }));
    expectFailure(
      result,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate's issuer CN=other-ca is not among the trusted CAs (the system roots and tls.caFile ${pki.ca.certFile}); put that CA's certificate in tls.caFile (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
  });

  it('names tls.caData and NODE_EXTRA_CA_CERTS among the trust it used, and the issuer none of them holds', async () => {
    const api = await issueToken({ serverCert: pki.untrustedServer });
    const withData = await run(basic(`${api.url}/token`, { tls: { caData: pki.ca.cert } }));
    expectFailure(
      withData,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate's issuer CN=other-ca is not among the trusted CAs (the system roots and tls.caData); put that CA's certificate in tls.caData (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
    const withExtra = await runCli(['--config-inline', provider(basic(`${api.url}/token`))], {
      env: { ...SECRET_ENV, NODE_EXTRA_CA_CERTS: pki.ca.certFile },
    });
    expectFailure(
      withExtra,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate's issuer CN=other-ca is not among the trusted CAs (the system roots with NODE_EXTRA_CA_CERTS ${pki.ca.certFile}); set tls.caFile or tls.caData to that CA's certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('fails with exit 3 on an expired certificate', async () => {
    const api = await issueToken({ serverCert: pki.expired });
    const result = await run(basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile } }));
    expectFailure(
      result,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate has expired (CERT_HAS_EXPIRED)`,
    );
  });

  it('fails with exit 3 when the certificate does not name the host', async () => {
    const api = await issueToken({ serverCert: pki.wrongHost });
    const result = await run(basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile } }));
    expectFailure(
      result,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate is for DNS:elsewhere.example, not localhost; fix url or set tls.serverName to one of those names (ERR_TLS_CERT_ALTNAME_INVALID)`,
    );
  });

  it('fails with exit 3 when tls.serverName names a host the certificate is not for', async () => {
    const api = await issueToken();
    const result = await run(
      basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile, serverName: 'elsewhere.example' } }),
    );
    expectFailure(
      result,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate is for DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, not elsewhere.example; fix url or set tls.serverName to one of those names (ERR_TLS_CERT_ALTNAME_INVALID)`,
    );
  });

  it('skips verification with insecureSkipVerify and warns on stderr at every call', async () => {
    const api = await issueToken({ serverCert: pki.untrustedServer });
    const config = basic(`${api.url}/token`, { tls: { insecureSkipVerify: true } });
    const [first, second] = await Promise.all([run(config), run(config)]);
    expectSuccess(first!, TOKEN_CREDENTIAL, INSECURE_WARNING);
    expectSuccess(second!, TOKEN_CREDENTIAL, INSECURE_WARNING);
    expect(api.requests).toHaveLength(2);
  });

  it('calls a plain http:// API when allowInsecureHTTP is true', async () => {
    const api = await issueToken({ insecure: true });
    expect(api.url.startsWith('http://')).toBe(true);
    expectSuccess(await run(basic(`${api.url}/token`, { allowInsecureHTTP: true })), TOKEN_CREDENTIAL);
    expect(api.requests).toHaveLength(1);
  });
});

describe.concurrent('mutual TLS', () => {
  const startMtls = () => issueToken({ mutualTls: true });

  it.each([
    {
      source: 'tls.certFile and tls.keyFile',
      tls: () => ({ certFile: pki.client.certFile, keyFile: pki.client.keyFile }),
    },
    {
      source: 'tls.certData and tls.keyData as PEM',
      tls: () => ({ certData: pki.client.cert, keyData: pki.client.key }),
    },
    {
      source: 'tls.certData and tls.keyData as base64 of PEM',
      tls: () => ({ certData: base64(pki.client.cert), keyData: base64(pki.client.key) }),
    },
  ])('presents the client certificate from $source', async ({ tls }) => {
    const api = await startMtls();
    const result = await run(basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile, ...tls() } }));
    expectSuccess(result, TOKEN_CREDENTIAL, '', clientKeySecrets);
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.clientCN).toBe('test-user');
  });

  it('fails with exit 3 and says to set a client certificate when the server requires one', async () => {
    const api = await startMtls();
    const result = await run(basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile } }));
    expectFailure(
      result,
      3,
      `TLS handshake with ${api.url}/token failed: the server rejected the client certificate; set tls.certFile and tls.keyFile to one it trusts (alert certificate required)`,
    );
    expect(api.requests).toHaveLength(0);
  });

  // Node's TLS server drops a connection whose client certificate it cannot verify without an
  // alert, so all the client can say is that the server hung up.
  it('fails with exit 3 when the client certificate is not signed by the CA the server trusts', async () => {
    const api = await startMtls();
    const tls = { caFile: pki.ca.certFile, certFile: pki.server.certFile, keyFile: pki.server.keyFile };
    const result = await run(basic(`${api.url}/token`, { tls, retry: { limit: 0 } }));
    expectFailure(
      result,
      3,
      `connection to ${api.url}/token reset by the server (ECONNRESET)`,
      allSecrets([pki.server.key]),
    );
    expect(api.requests).toHaveLength(0);
  });

  it('fails with exit 2, before any connection, when tls.keyFile cannot be read', async () => {
    const api = await startMtls();
    const result = await run(
      basic(`${api.url}/token`, { tls: { certFile: pki.client.certFile, keyFile: '/nonexistent/client.key' } }),
    );
    expectFailure(
      result,
      2,
      'webAPIProviderConfig.tls.keyFile: cannot read /nonexistent/client.key: no such file',
      clientKeySecrets,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('fails with exit 2 when tls.keyData is neither PEM nor base64 of PEM, without showing it', async () => {
    const api = await startMtls();
    const bogus = 'not-a-key-Jm4Wq8Zp';
    const result = await run(basic(`${api.url}/token`, { tls: { certData: pki.client.cert, keyData: bogus } }));
    expectFailure(
      result,
      2,
      'webAPIProviderConfig.tls.keyData: expected PEM private key (or base64 of it)',
      allSecrets([bogus]),
    );
  });
});
