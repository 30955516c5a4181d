// A token endpoint that echoes a secret in its error answer, placed so that the 200-character cut
// of the message falls inside it: the piece left must not reach stderr. Every cut position is tried
// on readTokenAnswer with a real Redactor (what the report does), and end to end in process for the
// device code and a client secret the config reads from env.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTokenAnswer } from '../../src/login/token.js';
import { Redactor } from '../../src/redact/redactor.js';
import { leaks } from '../helpers/cli.js';
import { execInfoEnv, standInDeviceConfig } from '../helpers/device-config.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const DEVICE_CODE = 'Gd7-device-code-Wq93mZ1k';
const CLIENT_SECRET = 'Cs4-client-secret-Pv62nB8';

/** Every prefix of `secret` at least 4 characters long that `text` holds. */
function pieces(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let k = 4; k <= secret.length; k++) if (text.includes(secret.slice(0, k))) found.push(secret.slice(0, k));
  return found;
}

function refusal(answer: Record<string, unknown>, redactor: Redactor): string {
  try {
    readTokenAnswer(400, answer, 'device_code', (text) => redactor.redact(text));
  } catch (error) {
    return redactor.redact((error as Error).message);
  }
  throw new Error('readTokenAnswer did not refuse');
}

describe('an echo cut by the 200-character limit', () => {
  it.each(['error_description', 'error'])(
    'in %s, at every position of the secret: no piece of it in the message',
    (field) => {
      const redactor = new Redactor();
      redactor.add(DEVICE_CODE);
      for (let k = 1; k < DEVICE_CODE.length; k++) {
        const echo = `${'x'.repeat(200 - k)}${DEVICE_CODE}`;
        const message = refusal(
          field === 'error' ? { error: echo } : { error: 'invalid_grant', error_description: echo },
          redactor,
        );
        expect(pieces(message, DEVICE_CODE), `cut after ${k} characters`).toEqual([]);
      }
    },
  );
});

describe('end to end, a token endpoint that echoes what it was sent', () => {
  const pki = makePki();
  let api: TokenApi;
  let echoed = '';
  beforeAll(async () => {
    api = await startTokenApi((request, response) => {
      if (request.path === '/device') {
        return json(response, 200, {
          device_code: DEVICE_CODE,
          user_code: 'ABCD-EFGH',
          verification_uri: `https://localhost:${api.port}/verify`,
          expires_in: 5,
          interval: 1,
        });
      }
      return json(response, 400, { error: 'invalid_grant', error_description: `${'x'.repeat(190)}${echoed}` });
    });
  });
  afterAll(() => api.close());

  it.each([
    ['the device code', DEVICE_CODE],
    ['the client secret', CLIENT_SECRET],
  ])(
    '%s: exit 3, no piece of it on stderr',
    async (_name, secret) => {
      echoed = secret;
      const config = standInDeviceConfig(api.port, pki.ca.certFile, {
        form: { client_id: 'kubectl', client_secret: '{{ env.CLIENT_SECRET }}' },
      });
      const result = await runInProcess(['--config-inline', config], {
        env: { CLIENT_SECRET, ...execInfoEnv(true) },
        loginSleep: () => Promise.resolve(),
      });
      expect(result.code).toBe(3);
      expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(
        /^webapi-credential: the token endpoint refused the device code with 400: "invalid_grant" \("x{190}/,
      );
      expect(pieces(result.stderr, secret)).toEqual([]);
      expect(leaks(result, [DEVICE_CODE, CLIENT_SECRET])).toEqual([]);
    },
    20_000,
  );
});

describe('a verification_uri_complete that carries the device code', () => {
  const pki = makePki();
  let api: TokenApi;
  let complete = '';
  beforeAll(async () => {
    api = await startTokenApi((request, response) => {
      if (request.path === '/device') {
        return json(response, 200, {
          device_code: DEVICE_CODE,
          user_code: 'ABCD-EFGH',
          verification_uri: `https://localhost:${api.port}/verify`,
          verification_uri_complete: complete.replace('PORT', String(api.port)),
          expires_in: 5,
          interval: 1,
        });
      }
      return json(response, 400, { error: 'access_denied' });
    });
  });
  afterAll(() => api.close());

  it.each([
    ['as it is', `https://localhost:PORT/verify?code=${DEVICE_CODE}`],
    ['percent-encoded', `https://localhost:PORT/verify?code=${encodeURIComponent(DEVICE_CODE).replaceAll('-', '%2D')}`],
    ['in base64', `https://localhost:PORT/verify?c=${Buffer.from(DEVICE_CODE).toString('base64url')}`],
  ])(
    '%s: the prompt names verification_uri and the code to enter, nothing redacted, no secret',
    async (_name, uri) => {
      complete = uri;
      const config = standInDeviceConfig(api.port, pki.ca.certFile);
      const result = await runInProcess(['--config-inline', config], {
        env: execInfoEnv(true),
        loginSleep: () => Promise.resolve(),
      });
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n').slice(0, 2)).toEqual([
        `webapi-credential: to log in, open https://localhost:${api.port}/verify`,
        'webapi-credential: and enter the code ABCD-EFGH (within 1 minute; Ctrl-C cancels)',
      ]);
      expect(leaks(result, [DEVICE_CODE])).toEqual([]);
    },
    20_000,
  );
});
