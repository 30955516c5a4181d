// https:// to a port that speaks plain HTTP: OpenSSL says "wrong version number" with a process
// address and a source path; the user needs to hear which of the two to change.
import { describe, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { json } from '../helpers/token-api.js';
import { SECRET, SECRET_ENV, expectFailure, provider, tokenApis } from '../helpers/integration.js';

const startApi = tokenApis();

describe('TLS to a plain-HTTP port', () => {
  it('says the server answered in plain HTTP and what to do, in one line', async () => {
    const api = await startApi((_request, response) => json(response, 200, { access_token: SECRET.token }), {
      insecure: true,
    });
    const port = new URL(api.url).port;
    const config = provider({
      method: 'POST',
      url: `https://localhost:${port}/token`,
      tokenPath: '$.access_token',
      headers: { 'X-Key': '{{ env.API_KEY }}' },
      retry: { limit: 0 },
    });
    const result = await runInProcess(['--config-inline', config], { env: SECRET_ENV });
    expectFailure(
      result,
      3,
      `the server at https://localhost:${port} answered in plain HTTP, not TLS: use http:// with allowInsecureHTTP, or the TLS port`,
    );
  });
});
