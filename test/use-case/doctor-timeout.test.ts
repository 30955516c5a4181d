// doctor's stages share one deadline; the token API stage gets what the stages before it left. Its
// message names --timeout as the person gave it (`1s`), never that remainder (`998ms`): a clock that
// moves a millisecond at every look makes the remainder certain, in process, against a real HTTPS
// token API that never answers.
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { startTokenApi, type TokenApi } from '../helpers/token-api.js';

const pki = makePki();
let api: TokenApi | undefined;
afterAll(() => api?.close());

describe('doctor under --timeout', () => {
  it('names --timeout 1s as given when the token API never answers', async () => {
    api = await startTokenApi(() => {
      // Never answers: the deadline ends the call.
    });
    let looks = 0;
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: `${api.url}/token`,
        tokenPath: '$.access_token',
        headers: { A: '{{ env.DOCTOR_KEY }}' },
        tls: { caFile: pki.ca.certFile },
      },
    });
    const result = await runInProcess(['doctor', '--timeout', '1s', '--config-inline', config], {
      env: { DOCTOR_KEY: 'doctor-key-Vt5' },
      now: () => Date.now() + looks++,
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(`✗ token API   no answer from ${api.url}/token within --timeout 1s\n`);
    expect(result.stdout + result.stderr).not.toContain('doctor-key-Vt5');
  });
});
