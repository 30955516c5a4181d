// cluster-auth's own words read the same whichever word a secret decided (docs/redaction.md, "Values
// a secret decided, and the plugin's own words"): were a word of its fixed text that a comparison in
// the config chose shown as [REDACTED] for one secret and not for the other, each run would tell one
// bit, and a chain of comparisons spells the secret out. Each case runs the same command with two
// thresholds on either side of the secret, so that each word is chosen once, against real local HTTPS
// servers; what a server gave is still redacted in full where it is put in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, type CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { MACHINE_ID, MACHINE_SECRET, startDeviceProvider, type DeviceProvider } from '../helpers/device-provider.js';
import { fakeJwt, json, startTokenApi, type TokenApi } from '../helpers/token-api.js';
import { makePki } from '../helpers/pki.js';

const SECRET = 'hunter2-decides-31337';
const PREFIX = 'webapi-credential: ';
const pki = makePki();
let idp: DeviceProvider;
let api: TokenApi;
/**
 * The claims the token API's JWT holds; `echo` adds a claim named by the header the config decided,
 * `echoIss` makes that header the host of the iss (with `echoIss` as its scheme).
 */
let claims: Record<string, unknown> = {};
let echo = false;
let echoIss: string | undefined;
/** The iss is this server with the header as its path, and its document there answers no JSON, the header in its content type. */
let echoDocument = false;
beforeAll(async () => {
  idp = await startDeviceProvider(pki);
  // A token API with no discovery document, answering a JWT of the claims a test sets.
  api = await startTokenApi((request, response) => {
    if (echoDocument && request.path.endsWith('/.well-known/openid-configuration')) {
      const word = request.path.split('/')[1] ?? '';
      response.writeHead(200, { 'content-type': `text/plain; charset=${word}` });
      return void response.end('no json');
    }
    return request.path === '/token'
      ? json(response, 200, {
          access_token: fakeJwt(Math.floor(Date.now() / 1000) + 600, {
            ...claims,
            ...(echo ? { [String(request.headers['x-word'])]: 'x' } : {}),
            ...(echoIss ? { iss: `${echoIss}://${String(request.headers['x-word'])}.example.test` } : {}),
            ...(echoDocument ? { iss: `${api.url}/${String(request.headers['x-word'])}` } : {}),
          }),
        })
      : json(response, 404, { error: 'not_found' });
  });
}, 30_000);
afterAll(async () => {
  await Promise.all([idp?.close(), api?.close()]);
});

const decides = (yes: string, no: string) => `{{ env.SECRET < vars.t ? '${yes}' : '${no}' }}`;

/** The device provider's client credentials, with a header a secret decided. */
const machine = (yes: string, no: string, form: Record<string, string> = {}) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${idp.issuer}/token`,
      headers: { Authorization: `{{ basicAuth("${MACHINE_ID}", env.CLIENT_SECRET) }}`, 'X-Word': decides(yes, no) },
      form: { grant_type: 'client_credentials', ...form },
      tokenPath: '$.access_token',
      tls: { caFile: pki.ca.certFile },
    },
  });
/** The token API of this file, with a header a secret decided. */
const fake = (yes: string, no: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${api.url}/token`,
      headers: { 'X-Word': decides(yes, no) },
      tokenPath: '$.access_token',
      tls: { caFile: pki.ca.certFile },
      ...extra,
    },
  });

/** The same command with each threshold (the secret is between them): each word is chosen once. */
async function bothWays(args: string[]): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const t of ['a', 'z'])
    results.push(
      await runInProcess(['cluster-auth', ...args, '--set', `t=${t}`], {
        env: { SECRET, CLIENT_SECRET: MACHINE_SECRET },
      }),
    );
  for (const result of results) expect(leaks(result, [SECRET, MACHINE_SECRET])).toEqual([]);
  return results;
}

describe("cluster-auth's errors read the same whichever word a secret decided", () => {
  it.each([
    ['token', 'other'],
    ['audience', 'other'],
  ])('an aud it cannot know, whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(['--config-inline', machine(yes, no)]);
    expect(first).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}cannot know the access token's aud: the config asks for no audience or resource (--set audience= or --set resource=), and without one the issuer decides it; run cluster-auth --from-token to read it from a real token\n`,
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['names', 'other'],
    ['endpoint', 'other'],
  ])('an issuer it cannot find, whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays([
      '--config-inline',
      fake(yes, no, { form: { resource: 'https://kubernetes.example.test' } }),
    ]);
    expect(first).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}cannot know the issuer: no OpenID Connect document at ${api.url}/.well-known/openid-configuration names the token endpoint ${api.url}/token; give it with --issuer URL, or run cluster-auth --from-token\n`,
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['failed', 'other'],
    ['issuer', 'other'],
  ])('an --issuer without a document, whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays([
      '--config-inline',
      fake(yes, no, { form: { resource: 'https://kubernetes.example.test' } }),
      '--issuer',
      api.url,
    ]);
    expect(first).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}the kube-apiserver reads the issuer's keys through ${api.url}/.well-known/openid-configuration, which failed: answered 404 Not Found: {"error":"not_found"}; fix --issuer, or run cluster-auth --from-token\n`,
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['certificate', 'other'],
    ['cluster', 'other'],
  ])('a client certificate credential, whether the secret chose %s or %s', async (yes, no) => {
    const config = JSON.parse(fake(yes, no)) as { webAPIProviderConfig: Record<string, unknown> };
    delete config.webAPIProviderConfig['tokenPath'];
    Object.assign(config.webAPIProviderConfig, { clientCertificateDataPath: '$.c', clientKeyDataPath: '$.k' });
    const [first, second] = await bothWays(['--config-inline', JSON.stringify(config)]);
    expect(first).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}this config's credential is a client certificate: the cluster trusts it through its client CA (kube-apiserver --client-ca-file), not a jwt authenticator\n`,
    });
    expect(second).toEqual(first);
  });

  it('a token endpoint whose path a secret decided is refused, the same whichever it chose: the issuer found from it would be printed', async () => {
    const config = JSON.parse(fake('one', 'two', { form: { resource: 'https://kubernetes.example.test' } })) as {
      webAPIProviderConfig: Record<string, unknown>;
    };
    config.webAPIProviderConfig['url'] = `${api.url}/${decides('t', 'u')}/token`;
    const [first, second] = await bothWays(['--config-inline', JSON.stringify(config)]);
    expect(first).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}webAPIProviderConfig.url: a secret decided or gave the token endpoint's URL, and cluster-auth would print the issuer found from it: give it with --issuer URL, or run cluster-auth --from-token\n`,
    });
    expect(second).toEqual(first);
  });
});

describe('cluster-auth refuses an audience or client id a secret decided whatever it chose', () => {
  const refused = (field: string, parameter: string) =>
    `${PREFIX}${field}: a secret decided or gave the ${parameter} it asks for, and cluster-auth prints no value a secret decides: give it as text of the config or with --set\n`;

  it('an empty audience', async () => {
    const [first, second] = await bothWays([
      '--config-inline',
      machine('one', 'two', { audience: decides('', 'https://k8s.example.test'), resource: 'https://r.example.test' }),
      '--issuer',
      idp.issuer,
    ]);
    expect(first).toEqual({ code: 2, stdout: '', stderr: refused('webAPIProviderConfig.form.audience', 'audience') });
    expect(second).toEqual(first);
  });

  it('an audience the query asks for already', async () => {
    const config = JSON.parse(
      machine('one', 'two', { audience: decides('https://k8s.example.test', 'https://other.example.test') }),
    ) as { webAPIProviderConfig: Record<string, unknown> };
    config.webAPIProviderConfig['query'] = { audience: 'https://k8s.example.test' };
    const [first, second] = await bothWays(['--config-inline', JSON.stringify(config), '--issuer', idp.issuer]);
    expect(first).toEqual({ code: 2, stdout: '', stderr: refused('webAPIProviderConfig.form.audience', 'audience') });
    expect(second).toEqual(first);
  });

  it('an empty client id', async () => {
    const config = JSON.parse(machine('one', 'two', { client_id: decides('', 'kubectl') })) as {
      webAPIProviderConfig: Record<string, unknown>;
    };
    config.webAPIProviderConfig['tokenPath'] = '$.id_token';
    const [first, second] = await bothWays(['--config-inline', JSON.stringify(config), '--issuer', idp.issuer]);
    expect(first).toEqual({ code: 2, stdout: '', stderr: refused('webAPIProviderConfig.form.client_id', 'client_id') });
    expect(second).toEqual(first);
  });
});

describe('cluster-auth reads the parameters a request carries without a secret deciding which', () => {
  // A secret that decides whether the URL's query or a raw form body holds an audience at all: read
  // from the text as sent, one secret got a manifest and the other a refusal. Read from the text as
  // shown (each value a secret reached or decided [REDACTED]), both find the same parameters.
  it('a query a secret decided in the URL', async () => {
    const config = JSON.parse(machine('one', 'two', { resource: 'https://r.example.test' })) as {
      webAPIProviderConfig: Record<string, unknown>;
    };
    config.webAPIProviderConfig['url'] = `${idp.issuer}/token${decides('?audience=https://k8s.example.test', '')}`;
    const [first, second] = await bothWays(['--config-inline', JSON.stringify(config), '--issuer', idp.issuer]);
    expect(first!.stdout).not.toContain('k8s.example.test');
    expect(second).toEqual(first);
  });

  it('a raw form body a secret decided part of', async () => {
    const config = JSON.parse(machine('one', 'two')) as { webAPIProviderConfig: Record<string, unknown> };
    delete config.webAPIProviderConfig['form'];
    config.webAPIProviderConfig['headers'] = {
      ...(config.webAPIProviderConfig['headers'] as Record<string, string>),
      'Content-Type': 'application/x-www-form-urlencoded',
    };
    config.webAPIProviderConfig['body'] =
      `grant_type=client_credentials&resource=https://r.example.test${decides('&audience=https://k8s.example.test', '')}`;
    const [first, second] = await bothWays(['--config-inline', JSON.stringify(config), '--issuer', idp.issuer]);
    expect(first!.stdout).not.toContain('k8s.example.test');
    expect(second).toEqual(first);
  });
});

describe("cluster-auth's choice of the issuer's CA does not tell the host a secret decided", () => {
  it("the token endpoint's host a secret chose: the warning and the manifest are the same whichever it chose", async () => {
    const config = JSON.parse(machine('one', 'two', { resource: 'https://kubernetes.example.test' })) as {
      webAPIProviderConfig: Record<string, unknown>;
    };
    // Only with --issuer: cluster-auth sends no token request, so the host need not answer.
    config.webAPIProviderConfig['url'] =
      `https://${decides('localhost', 'elsewhere.example.test')}:${new URL(idp.issuer).port}/token`;
    const [first, second] = await bothWays(['--config-inline', JSON.stringify(config), '--issuer', idp.issuer]);
    expect(first!.code, first!.stderr).toBe(0);
    expect(first!.stderr).toBe(
      `${PREFIX}warning: the config's CA (tls.caFile ${pki.ca.certFile}) is for a host a secret chose ([REDACTED]:${new URL(idp.issuer).port}), which cluster-auth does not take for the issuer's: issuer.certificateAuthority left out (the apiserver then trusts its system roots)\n`,
    );
    expect(second).toEqual(first);
  });
});

describe('cluster-auth --from-token reads the same whichever word a secret decided', () => {
  it.each([
    ['claims', 'other'],
    ['issuer', 'other'],
  ])(
    'a token without iss, whether the secret chose %s or %s; a claim named as the header was is [REDACTED]',
    async (yes, no) => {
      claims = { aud: 'a' };
      echo = true;
      try {
        const [first, second] = await bothWays(['--config-inline', fake(yes, no), '--from-token']);
        expect(first).toEqual({
          code: 4,
          stdout: '',
          stderr: `${PREFIX}the token has no iss claim, and a kube-apiserver takes a JWT by its issuer; its claims are sub, exp, aud, [REDACTED]\n`,
        });
        expect(second).toEqual(first);
      } finally {
        echo = false;
      }
    },
  );

  it.each([
    ['expected', 'other'],
    ['query', 'other'],
  ])('an iss that is no https URL, whether the secret chose %s or %s', async (yes, no) => {
    claims = { iss: 'http://idp.example.test', aud: 'a' };
    const [first, second] = await bothWays(['--config-inline', fake(yes, no), '--from-token']);
    expect(first).toEqual({
      code: 4,
      stdout: '',
      stderr: `${PREFIX}the token's iss: expected an https:// URL without query, fragment or user info, got "http://idp.example.test": a kube-apiserver takes only an https:// issuer without query, fragment or user info\n`,
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['group', 'other'],
    ['keys', 'other'],
    ['host', 'other'],
  ])('its warnings, whether the secret chose %s or %s, and the manifest', async (yes, no) => {
    claims = { iss: 'https://idp.example.test', aud: 'a', groups: undefined };
    const [first, second] = await bothWays([
      '--config-inline',
      fake(yes, no),
      '--from-token',
      '--groups-claim',
      'groups',
    ]);
    expect(first!.code, first!.stderr).toBe(0);
    expect(
      first!.stderr.split('\n').map((line) => line.replace(/, which failed here: .*/, ', which failed here: …')),
    ).toEqual([
      `${PREFIX}warning: the token has no groups claim (--groups-claim): the cluster will see this user in no group of the issuer's`,
      `${PREFIX}warning: the kube-apiserver reads the issuer's keys through https://idp.example.test/.well-known/openid-configuration, which failed here: …`,
      `${PREFIX}warning: the config's CA (tls.caFile ${pki.ca.certFile}) is for ${new URL(api.url).host}, not the issuer's host: issuer.certificateAuthority left out (the apiserver then trusts its system roots)`,
      '',
    ]);
    expect(first!.stderr).not.toContain('[REDACTED]');
    expect(second).toEqual(first);
  });

  it('an iss that echoes what was sent is [REDACTED] where a message puts it in, the words around it the same', async () => {
    claims = { aud: 'a' };
    try {
      echoIss = 'https';
      const [first, second] = await bothWays(['--config-inline', fake('echoone', 'echotwo'), '--from-token']);
      expect(first!.code, first!.stderr).toBe(0);
      expect(first!.stderr.split('\n')[0]).toMatch(
        /^webapi-credential: warning: the kube-apiserver reads the issuer's keys through https:\/\/\[REDACTED\]\.example\.test\/\.well-known\/openid-configuration, which failed here: cannot resolve the host of it \(E[A-Z_]+\)$/,
      );
      expect(second!.stderr).toEqual(first!.stderr);
      echoIss = 'http';
      const [plain, other] = await bothWays(['--config-inline', fake('echoone', 'echotwo'), '--from-token']);
      expect(plain).toEqual({
        code: 4,
        stdout: '',
        stderr: `${PREFIX}the token's iss: expected an https:// URL without query, fragment or user info, got "http://[REDACTED].example.test": a kube-apiserver takes only an https:// issuer without query, fragment or user info\n`,
      });
      expect(other).toEqual(plain);
    } finally {
      echoIss = undefined;
    }
  });

  it("an issuer's document whose content type echoes what was sent is [REDACTED] there, the words around it the same", async () => {
    claims = { aud: 'a' };
    echoDocument = true;
    try {
      const [first, second] = await bothWays(['--config-inline', fake('echoone', 'echotwo'), '--from-token']);
      expect(first!.code, first!.stderr).toBe(0);
      expect(first!.stderr.split('\n')[0]).toBe(
        `${PREFIX}warning: the kube-apiserver reads the issuer's keys through ${api.url}/[REDACTED]/.well-known/openid-configuration, which failed here: answered 200 with no JSON (text/plain; charset=[REDACTED], 7 bytes)`,
      );
      expect(second!.stderr).toEqual(first!.stderr);
    } finally {
      echoDocument = false;
    }
  });
});
