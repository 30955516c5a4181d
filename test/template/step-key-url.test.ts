// validate refuses what every get-token run refuses, with the same line (README "validate"): a URL
// host read out of an object by a key a step answers. Before the steps run get-token renders the key
// as a placeholder and its URL as https://[a secret decides]/token, which no check passes, so every
// run fails before its first request, whatever the step would answer; validate and render withhold
// the URL unchecked and call the config valid.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

const config = (url: string) =>
  JSON.stringify({
    webAPIProviderConfig: {
      steps: [{ name: 'login', method: 'POST', url: 'https://idp.example.test/login' }],
      method: 'POST',
      url,
      tokenPath: '$.t',
    },
  });

// The same for a step's answer read by a secret key: steps.login[...] whatever S holds.
const URLS = [
  'https://{{ { admin: "a.example.test", user: "b.example.test" }[steps.login.role] }}/token',
  'https://{{ steps.login[env.S] }}/token',
];

describe.each(URLS)('a URL host read by a key a step answers: %s', (url) => {
  it.each(['validate', 'render'])('%s refuses it as get-token does, before any request', async (command) => {
    const text = config(url);
    const run = await runInProcess(['--config-inline', text], { env: { S: 'host' } });
    // Exit 2 with no request made: idp.example.test does not resolve, so a request would be exit 3.
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const checked = await runInProcess([command, '--config-inline', text], { env: { S: 'host' } });
    expect({ code: checked.code, stdout: checked.stdout, stderr: checked.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: run.stderr,
    });
  });
});
