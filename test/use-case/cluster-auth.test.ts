// cluster-auth in process against real local HTTPS servers: from discovery and the config (the
// issuer found from the token endpoint, the aud from the client id or the resource asked for), from a
// token (its iss, aud and claims), and every value it cannot know or will not print: exit 2 (or 4 for
// a token that cannot serve), one line, nothing on stdout, no secret anywhere. What it prints checks
// against the transcribed k8s.io/apiserver rules, which can fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { authenticationConfigProblems, type AuthenticationConfiguration } from '../helpers/authentication-config.js';
import { CLIENT_ID } from '../helpers/device-config.js';
import { MACHINE_ID, MACHINE_SECRET, startDeviceProvider, type DeviceProvider } from '../helpers/device-provider.js';
import { fakeJwt, json, startTokenApi, type TokenApi } from '../helpers/token-api.js';
import { makePki } from '../helpers/pki.js';

const PREFIX = 'webapi-credential: ';
const pki = makePki();
const RESOURCE = 'https://kubernetes.example.test';
let idp: DeviceProvider;
let api: TokenApi;
let claims: Record<string, unknown> = {};
beforeAll(async () => {
  idp = await startDeviceProvider(pki);
  // A token API with no discovery document, answering a JWT of the claims a test sets.
  api = await startTokenApi((request, response) =>
    request.path === '/token'
      ? json(response, 200, { access_token: fakeJwt(Math.floor(Date.now() / 1000) + 600, claims) })
      : json(response, 404, { error: 'not_found' }),
  );
}, 30_000);
afterAll(async () => {
  await Promise.all([idp?.close(), api?.close()]);
});

const machine = (form: Record<string, string> = {}) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${idp.issuer}/token`,
      headers: { Authorization: `{{ basicAuth("${MACHINE_ID}", env.CLIENT_SECRET) }}` },
      form: { grant_type: 'client_credentials', ...form },
      tokenPath: '$.access_token',
      tls: { caFile: pki.ca.certFile },
    },
  });
const person = () =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${idp.issuer}/token`,
      form: { client_id: CLIENT_ID },
      tls: { caFile: pki.ca.certFile },
      login: { deviceAuthorization: { url: `${idp.issuer}/device/auth`, form: { scope: 'openid' } } },
    },
  });
const fake = () =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      tls: { caFile: pki.ca.certFile },
    },
  });
const env = { CLIENT_SECRET: MACHINE_SECRET };

function documents(stdout: string): Array<Record<string, unknown>> {
  return YAML.parseAllDocuments(stdout).map((document) => document.toJS() as Record<string, unknown>);
}

describe('cluster-auth from discovery and the config', () => {
  it("an access token's aud is the resource asked for; the issuer is the one whose document names the token endpoint", async () => {
    const result = await runInProcess(
      [
        'cluster-auth',
        '--config-inline',
        machine({ resource: RESOURCE }),
        '--groups-claim',
        'groups',
        '--bind-group',
        'platform',
        '--role',
        'edit',
      ],
      { env },
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const [config, binding] = documents(result.stdout);
    expect(authenticationConfigProblems(config)).toEqual([]);
    expect((config as unknown as AuthenticationConfiguration).jwt).toEqual([
      {
        issuer: { url: idp.issuer, audiences: [RESOURCE], certificateAuthority: pki.ca.cert },
        claimMappings: { username: { claim: 'sub', prefix: 'oidc:' }, groups: { claim: 'groups', prefix: 'oidc:' } },
      },
    ]);
    expect(binding).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'oidc:platform-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'oidc:platform' }],
    });
    expect(result.stdout).toContain(
      `#     --oidc-groups-claim=groups\n#     --oidc-groups-prefix=oidc:\n#     --oidc-ca-file=<a file holding the certificateAuthority below>\n`,
    );
    expect(result.stdout).toContain(
      `# EKS (aws eks associate-identity-provider-config --oidc): issuerUrl=${idp.issuer},clientId=${RESOURCE},usernameClaim=sub,usernamePrefix=oidc:,groupsClaim=groups,groupsPrefix=oidc:\n`,
    );
    expect(leaks(result, [MACHINE_SECRET])).toEqual([]);
  });

  it("an id_token's aud is the client id; --issuer skips the search; no prefix is the legacy flags' -", async () => {
    const result = await runInProcess([
      'cluster-auth',
      '--config-inline',
      person(),
      '--issuer',
      idp.issuer,
      '--username-prefix',
      '',
      '--bind-user',
      'alice',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const [config, binding] = documents(result.stdout);
    expect(authenticationConfigProblems(config)).toEqual([]);
    expect((config as unknown as AuthenticationConfiguration).jwt[0]!.issuer.audiences).toEqual([CLIENT_ID]);
    expect((config as unknown as AuthenticationConfiguration).jwt[0]!.claimMappings.username).toEqual({
      claim: 'sub',
      prefix: '',
    });
    expect(result.stdout).toContain('#     --oidc-username-prefix=-\n');
    expect((binding as { subjects: unknown[] }).subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
    ]);
  });

  it("a private key in the config's CA bundle goes into no manifest: only its certificates, with a note", async () => {
    const bundle = `${pki.ca.cert}${pki.client.key}`;
    const config = JSON.stringify({
      webAPIProviderConfig: {
        ...JSON.parse(machine({ resource: RESOURCE })).webAPIProviderConfig,
        tls: { caData: bundle },
      },
    });
    const result = await runInProcess(['cluster-auth', '--config-inline', config], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(
      (documents(result.stdout)[0] as unknown as AuthenticationConfiguration).jwt[0]!.issuer.certificateAuthority,
    ).toBe(pki.ca.cert);
    expect(result.stdout).not.toContain('PRIVATE KEY');
    expect(result.stderr).toMatch(
      /^webapi-credential: warning: tls\.caData holds [A-Z ]*PRIVATE KEY besides its certificates: only the certificates go into issuer\.certificateAuthority\n$/,
    );
  });

  it('a CA a secret decided or gave is exit 2 naming tls.caData, the same whether a guess is right or wrong, and no secret shown', async () => {
    const GUESS = 'hunter2-guess';
    const withCa = (caData: string) =>
      JSON.stringify({
        webAPIProviderConfig: { ...JSON.parse(machine({ resource: RESOURCE })).webAPIProviderConfig, tls: { caData } },
      });
    // Two certificates when the guess is right, one when wrong: a chain of such runs spells the secret out.
    const compared = withCa("{{ vars.CA + (env.GUESSED == '" + GUESS + "' ? '\\n' + vars.CA : '') }}");
    const expected = {
      code: 2,
      stdout: '',
      stderr: `${PREFIX}tls.caData: a secret decided or gave the CA, and cluster-auth prints no secret: give the CA with --set (caData: "{{ vars.CA }}") or a tls.caFile\n`,
    };
    const right = await runInProcess(['cluster-auth', '--config-inline', compared, '--set', `CA=${pki.ca.cert}`], {
      env: { ...env, GUESSED: GUESS },
    });
    const wrong = await runInProcess(['cluster-auth', '--config-inline', compared, '--set', `CA=${pki.ca.cert}`], {
      env: { ...env, GUESSED: 'other-value' },
    });
    expect(right).toEqual(expected);
    expect(wrong).toEqual(expected);
    const fromEnv = await runInProcess(['cluster-auth', '--config-inline', withCa('{{ env.CA_PEM }}')], {
      env: { ...env, CA_PEM: pki.ca.cert },
    });
    expect(fromEnv).toEqual(expected);
    expect(leaks(fromEnv, [MACHINE_SECRET, pki.ca.cert.split('\n')[1]!])).toEqual([]);
    expect(leaks(right, [MACHINE_SECRET, GUESS])).toEqual([]);
    // A CA of the config's own (vars) still goes into the manifest.
    const fromVars = await runInProcess(
      ['cluster-auth', '--config-inline', withCa('{{ vars.CA }}'), '--set', `CA=${pki.ca.cert}`],
      { env },
    );
    expect(fromVars.code, fromVars.stderr).toBe(0);
    expect(
      (documents(fromVars.stdout)[0] as unknown as AuthenticationConfiguration).jwt[0]!.issuer.certificateAuthority,
    ).toBe(pki.ca.cert);
  });

  it('an audience, resource or client_id a secret decides is exit 2 naming the field, the same whichever the secret chose: a one-letter value the redactor does not look for is refused by its taint', async () => {
    const SECRET = 'hunter2-decides-31337';
    const cases: Array<[string, string, string]> = [
      ['audience', "{{ env.GUESSED < vars.t ? 'a' : 'b' }}", 'webAPIProviderConfig.form.audience'],
      [
        'resource',
        "{{ env.GUESSED < vars.t ? 'https://a.example' : 'https://b.example' }}",
        'webAPIProviderConfig.form.resource',
      ],
      ['audience', "{{ env.GUESSED == 'x' && 'k' }}", 'webAPIProviderConfig.form.audience'],
    ];
    for (const [parameter, template, where] of cases) {
      const expected = {
        code: 2,
        stdout: '',
        stderr: `${PREFIX}${where}: a secret decided or gave the ${parameter} it asks for, and cluster-auth prints no value a secret decides: give it as text of the config or with --set\n`,
      };
      for (const t of ['a', 'z']) {
        const result = await runInProcess(
          ['cluster-auth', '--config-inline', machine({ [parameter]: template }), '--set', `t=${t}`],
          { env: { ...env, GUESSED: SECRET } },
        );
        expect(result).toEqual(expected);
        expect(leaks(result, [MACHINE_SECRET, SECRET])).toEqual([]);
      }
    }
    // In the URL's query, where a raw template could put it, the URL field is named.
    const inUrl = JSON.stringify({
      webAPIProviderConfig: {
        ...JSON.parse(machine()).webAPIProviderConfig,
        url: `${idp.issuer}/token?audience={{ env.GUESSED < vars.t ? 'a' : 'b' }}`,
      },
    });
    const result = await runInProcess(['cluster-auth', '--config-inline', inUrl, '--set', 't=a'], {
      env: { ...env, GUESSED: SECRET },
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}webAPIProviderConfig.url: a secret decided or gave the audience it asks for, and cluster-auth prints no value a secret decides: give it as text of the config or with --set\n`,
    });
  });

  // A step's answer is a placeholder before the steps run ("[steps.login.aud]"): the manifest once
  // carried that text as the audience the cluster should trust.
  it("an audience a step's answer gives is exit 2 naming the field: it is a secret, and unknown until the steps run", async () => {
    const config = JSON.parse(machine({ audience: '{{ steps.login.aud }}' }));
    config.webAPIProviderConfig.steps = [{ name: 'login', method: 'GET', url: `${idp.issuer}/aud` }];
    const result = await runInProcess(['cluster-auth', '--config-inline', JSON.stringify(config)], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}webAPIProviderConfig.form.audience: a secret decided or gave the audience it asks for, and cluster-auth prints no value a secret decides: give it as text of the config or with --set\n`,
    });
  });

  it('what it cannot know is exit 2, naming it and --from-token', async () => {
    const noAudience = await runInProcess(['cluster-auth', '--config-inline', machine()], { env });
    expect(noAudience).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}cannot know the access token's aud: the config asks for no audience or resource (--set audience= or --set resource=), and without one the issuer decides it; run cluster-auth --from-token to read it from a real token\n`,
    });
    const withResource = JSON.stringify({
      webAPIProviderConfig: { ...JSON.parse(fake()).webAPIProviderConfig, form: { resource: RESOURCE } },
    });
    const noIssuer = await runInProcess(['cluster-auth', '--config-inline', withResource]);
    expect(noIssuer).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}cannot know the issuer: no OpenID Connect document at ${api.url}/.well-known/openid-configuration names the token endpoint ${api.url}/token; give it with --issuer URL, or run cluster-auth --from-token\n`,
    });
  });
});

describe('cluster-auth --from-token', () => {
  it.each([
    [{ iss: 'https://idp.example.test', aud: ['a', 'b'] }, 0, ''],
    [
      { aud: 'a' },
      4,
      'the token has no iss claim, and a kube-apiserver takes a JWT by its issuer; its claims are sub, exp, aud',
    ],
    [
      { iss: 'https://idp.example.test' },
      4,
      'the token has no aud claim, and a kube-apiserver needs one of its audiences; its claims are sub, exp, iss',
    ],
    [
      { iss: 'http://idp.example.test', aud: 'a' },
      4,
      'the token\'s iss: expected an https:// URL without query, fragment or user info, got "http://idp.example.test": a kube-apiserver takes only an https:// issuer without query, fragment or user info',
    ],
    [
      { iss: 'https://idp.example.test', aud: 'a\n# injected' },
      4,
      "the token's aud claim holds a control or format character; cluster-auth writes no such value into a manifest",
    ],
    [
      { iss: 'https://idp.example.test', aud: 'a', sub: 7 },
      2,
      'the token has no sub claim of a string for the username (--username-claim); its claims are sub, exp, iss, aud',
    ],
  ])('a token with %j: exit %i', async (given, code, message) => {
    claims = given;
    const result = await runInProcess(['cluster-auth', '--config-inline', fake(), '--from-token']);
    expect(result.code, result.stderr).toBe(code);
    if (code === 0) {
      const [config] = documents(result.stdout);
      expect(authenticationConfigProblems(config)).toEqual([]);
      // Two audiences: MatchAny said, as validation wants; the legacy flags take one and say so.
      expect((config as unknown as AuthenticationConfiguration).jwt[0]!.issuer).toEqual({
        url: 'https://idp.example.test',
        audiences: ['a', 'b'],
        audienceMatchPolicy: 'MatchAny',
      });
      expect(result.stdout).toContain('#     --oidc-client-id=a   (one audience only: b not accepted this way)\n');
      // The issuer has no discovery here: said, since the apiserver reads its keys there.
      expect(result.stderr).toMatch(
        /^webapi-credential: warning: the kube-apiserver reads the issuer's keys through https:\/\/idp\.example\.test\/\.well-known\/openid-configuration, which failed here: /,
      );
      // The config's CA is for the token API's host, not the issuer's: left out, and said.
      expect(result.stderr).toContain('is for localhost:');
    } else {
      expect({ stdout: result.stdout, stderr: result.stderr }).toEqual({ stdout: '', stderr: `${PREFIX}${message}\n` });
    }
  });

  it('an opaque token (no resource asked of oidc-provider) is exit 2 naming why, and the token is not shown', async () => {
    const result = await runInProcess(['cluster-auth', '--config-inline', machine(), '--from-token'], { env });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(
      /^webapi-credential: the credential is no JWT \(an opaque token of \d+ characters\): a kube-apiserver's jwt authenticator takes JWTs only; /,
    );
    expect(leaks(result, [MACHINE_SECRET, ...idp.issued])).toEqual([]);
  });
});

it.each([
  [
    ['--bind-user', 'a', '--bind-group', 'g', '--groups-claim', 'groups'],
    'cluster-auth binds --bind-user or --bind-group, not both',
  ],
  [['--bind-group', 'g'], "--bind-group needs --groups-claim: without it the cluster sees no group of the issuer's"],
  [
    ['--bind-user'],
    '--bind-user without a name binds the user the token names: add --from-token, or give the name (--bind-user alice)',
  ],
  [['--role', 'a\u202eb'], '--role: a control or format character has no place in a manifest'],
  [['--username-claim', ''], '--username-claim needs a value'],
  [
    [
      '--config-inline',
      JSON.stringify({
        webAPIProviderConfig: {
          method: 'GET',
          url: 'https://localhost:9/c',
          clientCertificateDataPath: '$.c',
          clientKeyDataPath: '$.k',
        },
      }),
    ],
    "this config's credential is a client certificate: the cluster trusts it through its client CA (kube-apiserver --client-ca-file), not a jwt authenticator",
  ],
])('cluster-auth %j: exit 2 before any request', async (flags, message) => {
  const before = api.requests.length;
  const result = await runInProcess(['cluster-auth', '--config-inline', fake(), ...flags]);
  expect(result).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}${message}\n` });
  expect(api.requests.length).toBe(before);
});

it('the transcribed rules can fail: an http issuer, no audiences, a claim without its prefix, two audiences without MatchAny, one issuer twice, an unknown field', () => {
  const authenticator = (issuer: Record<string, unknown>, username: Record<string, unknown>) => ({
    issuer,
    claimMappings: { username },
  });
  expect(
    authenticationConfigProblems({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        authenticator({ url: 'http://idp.example.test?x=1', audiences: [] }, { claim: 'sub' }),
        authenticator(
          { url: 'https://idp.example.test', audiences: ['a', 'b'] },
          { claim: 'sub', prefix: '', expression: 'claims.sub' },
        ),
        authenticator(
          { url: 'https://idp.example.test', audiences: ['a'], certificateAuthority: 'not a certificate' },
          { expression: 'claims.sub', prefix: 'x' },
        ),
      ],
    }),
  ).toEqual([
    'jwt[0].issuer.url: Invalid value: URL scheme must be https',
    'jwt[0].issuer.url: Invalid value: URL must not contain a query',
    'jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required',
    'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
    'jwt[1].issuer.audienceMatchPolicy: Invalid value: audienceMatchPolicy must be MatchAny for multiple audiences',
    "jwt[1].claimMappings.username: Invalid value: claim and expression can't both be set",
    'jwt[2].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates',
    'jwt[2].claimMappings.username.prefix: Invalid value: may not be specified when expression is set',
    'jwt[2].issuer.url: Duplicate value',
  ]);
  expect(
    authenticationConfigProblems({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: [],
      oidc: {},
    }),
  ).toEqual(['$.oidc: unknown field']);
});
