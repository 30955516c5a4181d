// Habits from other tools: a shell's ${X} and $X, Go templates' {{ .Env.X }} and {{ .X }}, a bare
// environment variable name. Each gets a message that shows the form to write here; a shell habit
// passes validate with a warning (the text is legal, just not what was meant), get-token refuses it
// before any request.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { SECRET_ENV, expectFailure, provider } from '../helpers/integration.js';

const config = (headers: Record<string, string>) => provider({ method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.access_token', headers });
const INVALID = 'config from --config-inline is invalid: ';

describe('template habits from other tools', () => {
  it('warns about ${X} and $X under validate, and says how to write them', async () => {
    const result = await runCli(['validate', '--config-inline', config({ Authorization: 'Bearer ${API_TOKEN}', 'X-Org': '$ORG' })], { env: SECRET_ENV });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('config from --config-inline is valid: POST https://127.0.0.1:9/token\n');
    expect(result.stderr).toBe(
      'webapi-credential: warning: webAPIProviderConfig.headers.Authorization: ${API_TOKEN} is sent as written: a template reads the environment as {{ env.API_TOKEN }}\n' +
        'webapi-credential: warning: webAPIProviderConfig.headers.X-Org: $ORG is sent as written: a template reads the environment as {{ env.ORG }}\n',
    );
  });

  it('refuses them under get-token before any request', async () => {
    const result = await runCli(['--config-inline', config({ Authorization: 'Bearer ${API_TOKEN}' })], { env: SECRET_ENV });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').at(-2)).toBe(
      `webapi-credential: ${INVALID}webAPIProviderConfig.headers.Authorization: \${API_TOKEN} is sent as written: a template reads the environment as {{ env.API_TOKEN }}`,
    );
  });

  it.each([
    ['{{ .Env.API_TOKEN }}', '{{ .Env.API_TOKEN }} is Go template syntax; here it is {{ env.API_TOKEN }}'],
    ['{{ .API_TOKEN }}', '{{ .API_TOKEN }} is Go template syntax; here it is {{ env.API_TOKEN }}'],
    ['{{ .audience }}', '{{ .audience }} is Go template syntax; here it is {{ vars.audience }}'],
    ['{{ API_TOKEN }}', '{{ API_TOKEN }}: unknown name API_TOKEN; an environment variable is read as env.API_TOKEN'],
    ['{{ sha256(env.API_TOKEN) }}', '{{ sha256(env.API_TOKEN) }}: sha256() is not a helper; the helpers are urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid'],
  ])('names %s and the form to write', async (template, message) => {
    const result = await runCli(['validate', '--config-inline', config({ Authorization: template })], { env: SECRET_ENV });
    expectFailure(result, 2, `${INVALID}webAPIProviderConfig.headers.Authorization: ${message}`);
  });
});
