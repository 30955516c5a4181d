// An https:// proxy whose certificate is not trusted: the handshake that fails is the proxy's, and
// the message must say so, not blame the token API (which is trusted through tls.caFile).
import { createServer, type Server } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, SECRET_ENV, expectFailure, provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const servers: Server[] = [];
afterAll(() => servers.forEach((server) => server.close()));

/** A CONNECT proxy spoken to over TLS, with a certificate of a CA nobody trusts. */
async function untrustedHttpsProxy(): Promise<number> {
  const server = createServer({ key: pki.untrustedServer.key, cert: pki.untrustedServer.cert });
  server.on('connect', (request, client: Socket) => {
    const [host, port] = (request.url ?? '').split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('an https:// proxy with an untrusted certificate', () => {
  it('is named in the error, with what to do, and the token API is not blamed', async () => {
    const api = await startApi((_request, response) => json(response, 200, { access_token: SECRET.token }));
    const port = await untrustedHttpsProxy();
    const config = provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      headers: { 'X-Key': '{{ env.API_KEY }}' },
      tls: { caFile: pki.ca.certFile },
      retry: { limit: 0 },
    });
    const result = await runCli(['--config-inline', config], {
      env: { ...SECRET_ENV, HTTPS_PROXY: `https://localhost:${port}` },
    });
    expectFailure(
      result,
      3,
      `TLS handshake with the proxy https://localhost:${port} (from HTTPS_PROXY) failed: its certificate is not signed by a trusted CA; trust its CA through NODE_EXTRA_CA_CERTS or fix HTTPS_PROXY (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
    expect(api.requests).toHaveLength(0);
  });
});
