// The refusal's paste-able login command quotes each --set value as a shell reads it back. A --set
// value that holds an env secret the config reads is [REDACTED] when the quoting leaves it as typed,
// but a quote, a tab or a soft hyphen in the secret makes the quoting spell it differently
// ('\'' for ', \x09 for a tab), and the redactor no longer finds it: the secret is on stderr, in a
// form any person (and the shell) reads straight back.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

const NOT_INTERACTIVE = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});
const config = JSON.stringify({
  webAPIProviderConfig: {
    method: 'POST',
    url: 'https://localhost:1/token',
    form: { client_id: '{{ vars.clientId ?? "kubectl" }}', client_secret: '{{ env.CLIENT_SECRET }}' },
    login: { deviceAuthorization: { url: 'https://localhost:1/device', form: { scope: 'openid' } } },
  },
});

/** The words of the line as bash reads them back: '…' with '\'' inside, and $'…' with \xHH and \\. */
function shellReadBack(line: string): string {
  return line
    .replaceAll("'\\''", "'")
    .replace(/\$'((?:[^'\\]|\\.)*)'/g, (_m, body: string) =>
      body.replace(/\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\(.)/g, (_e, x?: string, u?: string, c?: string) =>
        x ? String.fromCharCode(parseInt(x, 16)) : u ? String.fromCharCode(parseInt(u, 16)) : c!,
      ),
    );
}

describe('the refusal line never shows an env secret held in a --set value, however it is quoted', () => {
  it.each([
    ['plain (redacted today)', 'plainSecretValue-123'],
    ['a single quote', "it's-a-Secret-9876"],
    ['a tab', 'tab\tSecret-Value-55'],
  ])('%s', async (_name, secret) => {
    const result = await runInProcess(['--config-inline', config, '--set', `clientId=${secret}`], {
      env: { CLIENT_SECRET: secret, KUBERNETES_EXEC_INFO: NOT_INTERACTIVE },
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr).toContain('webapi-credential login --config-inline');
    expect(result.stderr).not.toContain(secret);
    expect(shellReadBack(result.stderr)).not.toContain(secret);
  });
});
