// A login's messages are the plugin's frame: a word of them that a secret decided (the word a
// comparison in the config chose) reads the same whichever word it chose, while what the identity
// provider said is still redacted in full where it is put in. Each message is reported as the CLI
// reports it, once with each of two decided words.
import { describe, expect, it } from 'vitest';
import { reporter } from '../../src/cli/report.js';
import { readTokenAnswer } from '../../src/login/token.js';
import { readDeviceAuthorization } from '../../src/login/grants/device.js';
import { atEndpoint } from '../../src/login/endpoint.js';
import { RequestError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';

/** The line the CLI prints for what `fail` throws, with `decided` the word a secret chose. */
function reported(decided: string, fail: (redact: (text: string) => string) => void): string {
  const redactor = new Redactor();
  redactor.add('hunter2-read-31337');
  redactor.addDecided(decided);
  let written = '';
  const deps = { redactor, stderr: (text: string) => void (written += text), now: () => 0 };
  try {
    fail((text) => redactor.redact(text));
  } catch (error) {
    reporter(deps as unknown as Parameters<typeof reporter>[0]).failure(error, false);
  }
  return written;
}

describe("a login's messages read the same whichever word a secret decided", () => {
  it.each([
    ['refresh', 'other'],
    ['endpoint', 'other'],
  ])('a refused refresh token, whether the secret chose %s or %s', (yes, no) => {
    const refuse = (redact: (text: string) => string) =>
      readTokenAnswer(400, { error: 'invalid_grant', error_description: 'expired' }, 'refresh_token', redact);
    const first = reported(yes, refuse);
    expect(first).toBe(
      'webapi-credential: the token endpoint refused the refresh with 400: "invalid_grant" ("expired")\n',
    );
    expect(reported(no, refuse)).toBe(first);
  });

  it('what the identity provider said is still redacted where it is put in', () => {
    const refuse = (redact: (text: string) => string) =>
      readTokenAnswer(
        400,
        { error: 'invalid_grant', error_description: 'no such echoedword' },
        'refresh_token',
        redact,
      );
    expect(reported('echoedword', refuse)).toBe(
      'webapi-credential: the token endpoint refused the refresh with 400: "invalid_grant" ("no such [REDACTED]")\n',
    );
  });

  it.each([
    ['denied', 'other'],
    ['identity', 'other'],
  ])('a denied device login, whether the secret chose %s or %s', (yes, no) => {
    const deny = (redact: (text: string) => string) =>
      readTokenAnswer(400, { error: 'access_denied' }, 'device_code', redact);
    const first = reported(yes, deny);
    expect(first).toBe(
      'webapi-credential: the login was denied at the identity provider; run the command again to log in anew\n',
    );
    expect(reported(no, deny)).toBe(first);
  });

  it.each([
    ['endpoint', 'other'],
    ['answered', 'other'],
  ])("an HTTP failure said again naming the login's endpoint, whether the secret chose %s or %s", (yes, no) => {
    const failed = (redact: (text: string) => string) => {
      throw atEndpoint(
        new RequestError('HTTP_STATUS', `the token API answered 503 ${redact('Service Unavailable')}`, {
          status: 503,
          framed: true,
        }),
        'revocation',
      );
    };
    const first = reported(yes, failed);
    expect(first).toBe('webapi-credential: the revocation endpoint answered 503 Service Unavailable\n');
    expect(reported(no, failed)).toBe(first);
  });

  it.each([
    ['device', 'other'],
    ['authorization', 'other'],
  ])('an unusable device authorization, whether the secret chose %s or %s', (yes, no) => {
    const read = () => readDeviceAuthorization({ user_code: 'ABCD-EFGH' });
    const first = reported(yes, read);
    expect(first).toBe(
      'webapi-credential: the device authorization endpoint answered no device_code; check login.deviceAuthorization.url\n',
    );
    expect(reported(no, read)).toBe(first);
  });
});

describe('the line of a login nobody can answer reads the same whichever word a secret decided', () => {
  it.each([
    ['nobody', 'zzzzzz'],
    ['terminal', 'zzzzzz'],
  ])('whether the secret chose %s or %s', async (yes, no) => {
    const { runInProcess } = await import('../helpers/in-process.js');
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://idp.example/token',
        form: { client_id: 'kubectl', mode: `{{ env.S < "m" ? "${yes}" : "${no}" }}` },
        login: { deviceAuthorization: { url: 'https://idp.example/device' } },
      },
    });
    const seen = [];
    for (const S of ['abc-secret-5511', 'xyz-secret-5512']) {
      const result = await runInProcess(['get-token', '--config-inline', config], { env: { S } });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^webapi-credential: a login is needed and nobody can answer its prompt here \(stdin or stderr is no terminal\); log in once at a terminal/,
      );
      seen.push(result.stderr);
    }
    expect(seen[1]).toBe(seen[0]);
  });
});

describe("doctor's login stage reads the same whichever word a secret decided", () => {
  /** The stage's line as doctor's report prints it, with `decided` the word a secret chose. */
  async function printed(decided: string, refreshed: boolean): Promise<string> {
    const { loginStage } = await import('../../src/use-case/doctor/doctor-stages.js');
    const { formatText } = await import('../../src/cli/doctor-report.js');
    const redactor = new Redactor();
    redactor.add('hunter2-read-31337');
    redactor.addDecided(decided);
    const events = refreshed ? [{ stage: 'send' as const, label: 'main', ms: 1, ok: true, exchanges: [] }] : [];
    const line = loginStage(events, { ran: false, cacheOn: false }, {} as never);
    return formatText([line], {
      redact: (text) => redactor.redact(text),
      redactFrame: (text) => redactor.redactFrame(text),
    });
  }

  it.each([
    ['login', 'other', false],
    ['terminal', 'other', false],
    ['refresh', 'other', true],
    ['expired', 'other', true],
  ])('whether the secret chose %s or %s', async (yes, no, refreshed) => {
    const first = await printed(yes, refreshed);
    expect(first).toBe(
      `✓ login       ${refreshed ? 'the credential had expired: refreshed with the refresh token the cache holds, no person needed' : 'no login run (doctor --login logs in now at a terminal)'}; no refresh token is kept (the cache is off): each call without a credential needs a person; add --cache\n`,
    );
    expect(await printed(no, refreshed)).toBe(first);
  });
});
