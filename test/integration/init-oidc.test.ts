// `init oidc` against a real authorization server (panva's oidc-provider) whose token endpoint is at
// a path of its own (routes.token), found by discovery from the issuer alone, and against servers
// written to fail discovery each way (404s, RFC 8414 only, another issuer, too large, too slow,
// an untrusted CA). Each config init prints then gets a token from that server.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { closedPort, expectFailure, tokenApis } from '../helpers/integration.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';

const pki = makePki();
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-init-oidc-'));
const BASIC_SECRET = 'init-oidc-basic-secret-4Rw+/%';
const POST_SECRET = 'init-oidc-post-secret-9Lk';
const TOKEN_PATH = '/oauth2/v1/issue';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyFile = join(dir, 'client.pem');
writeFileSync(keyFile, rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
const SECRETS = [BASIC_SECRET, POST_SECRET, readFileSync(keyFile, 'utf8')];
const TRUST = ['--set', `caFile=${pki.ca.certFile}`];

let server: Server;
let issuer = '';
const startApi = tokenApis();

beforeAll(async () => {
  server = createServer({ key: pki.server.key, cert: pki.server.cert });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // An issuer with a path, as Keycloak's realms and Okta's custom servers have.
  issuer = `https://localhost:${(server.address() as AddressInfo).port}/tenants/platform`;
  const common = { grant_types: ['client_credentials'], redirect_uris: [], response_types: [] };
  const provider = new Provider(issuer, {
    clients: [
      { ...common, client_id: 'basic', client_secret: BASIC_SECRET, token_endpoint_auth_method: 'client_secret_basic' },
      { ...common, client_id: 'post', client_secret: POST_SECRET, token_endpoint_auth_method: 'client_secret_post' },
      {
        ...common,
        client_id: 'jwt',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'RS256',
        jwks: { keys: [rsa.publicKey.export({ format: 'jwk' })] },
      },
    ] as never,
    routes: { token: TOKEN_PATH },
    features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
  });
  // oidc-provider serves an issuer with a path when mounted under it.
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/tenants/platform/') && req.url !== '/tenants/platform')
      return json(res, 404, { error: 'not_found' });
    // As express's mount does it: the path below the mount point, the whole one as originalUrl.
    Object.assign(req, { originalUrl: req.url });
    req.url = req.url.slice('/tenants/platform'.length) || '/';
    void callback(req, res);
  });
}, 30_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const init = (args: string[], env: Record<string, string> = {}) => runCli(['init', ...args], { env });

describe('init oidc finds the token endpoint from the issuer alone', () => {
  it.each([
    ['client_secret_basic', 'basic', [], { CLIENT_SECRET: BASIC_SECRET }],
    ['client_secret_post', 'post', ['--set', 'authMethod=client_secret_post'], { CLIENT_SECRET: POST_SECRET }],
    ['private_key_jwt', 'jwt', ['--set', 'authMethod=private_key_jwt', '--set', `keyFile=${keyFile}`], {}],
  ] as const)(
    '%s: the printed config names where its URL came from, validates, and gets a token from the server',
    async (_method, client, extra, env) => {
      const printed = await init([
        'oidc',
        '--set',
        `issuer=${issuer}`,
        '--set',
        `clientId=${client}`,
        ...TRUST,
        ...extra,
      ]);
      expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
      expect(printed.stdout).toContain(
        `# tokenUrl: the token_endpoint of the issuer ${issuer}, from ${issuer}/.well-known/openid-configuration\n`,
      );
      expect(printed.stdout).toContain(`  url: "${issuer}${TOKEN_PATH}"\n`);
      expect(printed.stdout).toContain(`  tls:\n    caFile: ${pki.ca.certFile}\n`);
      expect(printed.stdout).not.toContain('vars.');
      const file = join(dir, `${client}.yaml`);
      writeFileSync(file, printed.stdout);
      const valid = await runCli(['validate', '--config', file], { env });
      expect({ code: valid.code, stderr: valid.stderr, stdout: valid.stdout }).toEqual({
        code: 0,
        stderr: '',
        stdout: `config from --config ${file} is valid: POST ${issuer}${TOKEN_PATH}\n`,
      });
      for (const _ of [1, 2]) {
        const got = await runCli(['--config', file], { env });
        expect({ code: got.code, stderr: got.stderr }).toEqual({ code: 0, stderr: '' });
        expect(JSON.parse(got.stdout).status.token).toMatch(/^\S{20,}$/);
        expect(leaks(got, SECRETS)).toEqual([]);
      }
    },
  );

  it('--set tokenUrl skips discovery: nothing listens, and init works offline', async () => {
    const port = await closedPort();
    const printed = await init([
      'oidc',
      '--set',
      `tokenUrl=https://localhost:${port}/token`,
      '--set',
      'clientId=basic',
      '--set',
      'scope=api:read api:write',
      '--set',
      'audience=https://k8s.example.com',
      '--set',
      'resource=https://k8s.example.com/api',
    ]);
    expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(printed.stdout).toContain(`  url: "https://localhost:${port}/token"\n`);
    expect(printed.stdout).toContain(
      '    scope: api:read api:write\n    audience: https://k8s.example.com\n    resource: https://k8s.example.com/api\n',
    );
    expect(printed.stdout).not.toContain('# tokenUrl:');
  });

  it('falls back to RFC 8414 (oauth-authorization-server, inserted before the issuer path) when there is no openid-configuration', async () => {
    const api = await startApi((request, response) => {
      if (request.path === '/.well-known/oauth-authorization-server/as')
        return json(response, 200, { issuer: `${api.url}/as`, token_endpoint: `${api.url}/as/token-here` });
      json(response, 404, { error: 'nope' });
    });
    const printed = await init(['oidc', '--set', `issuer=${api.url}/as`, '--set', 'clientId=c', ...TRUST]);
    expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(printed.stdout).toContain(
      `# tokenUrl: the token_endpoint of the issuer ${api.url}/as, from ${api.url}/.well-known/oauth-authorization-server/as\n`,
    );
    expect(printed.stdout).toContain(`  url: "${api.url}/as/token-here"\n`);
    expect(api.requests.map((request) => request.path)).toEqual([
      '/as/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server/as',
    ]);
  });
});

describe('init oidc refusals', () => {
  it('a missing required --set is exit 2 naming it, before any network', async () => {
    const api = await startApi((_request, response) => json(response, 500, {}));
    expectFailure(
      await init(['oidc', '--set', `issuer=${api.url}`, ...TRUST]),
      2,
      'init oidc needs --set clientId=…: the config reads vars.clientId (its header says where each is found; init oidc alone prints it)',
      SECRETS,
    );
    expectFailure(
      await init(['oidc', '--set', 'clientId=c']),
      2,
      'init oidc needs --set issuer=URL (or --set tokenUrl=URL): the config reads vars.tokenUrl (its header says where each is found; init oidc alone prints it)',
      SECRETS,
    );
    expectFailure(
      await init(['oidc', '--set', `issuer=${api.url}`, '--set', 'clientId=c', '--set', 'authMethod=private_key_jwt']),
      2,
      'init oidc/private-key-jwt needs --set keyFile=…: the config reads vars.keyFile (its header says where each is found; init oidc/private-key-jwt alone prints it)',
      SECRETS,
    );
    expectFailure(
      await init(['oidc', '--set', 'issuer=http://plain.example', '--set', 'clientId=c']),
      2,
      '--set issuer: expected an https:// URL without query, fragment or user info, got "http://plain.example"',
      SECRETS,
    );
    expectFailure(
      await init([
        'oidc',
        '--set',
        'issuer=https://x.example',
        '--set',
        'clientId=c',
        '--set',
        'authMethod=tls_client_auth',
      ]),
      2,
      '--set authMethod="tls_client_auth": expected client_secret_basic, client_secret_post, private_key_jwt',
      SECRETS,
    );
    // A provider already names its method: another one given to it is refused, and init oidc named.
    expectFailure(
      await init([
        'oidc/private-key-jwt',
        '--set',
        'issuer=https://x.example',
        '--set',
        'clientId=c',
        '--set',
        'keyFile=/k.pem',
        '--set',
        'authMethod=client_secret_basic',
      ]),
      2,
      '--set authMethod: oidc/private-key-jwt is private_key_jwt; give authMethod with init oidc',
      SECRETS,
    );
    expect(api.requests).toEqual([]);
  });

  it('a failed discovery is exit 3 naming every URL tried, why, and --set tokenUrl', async () => {
    const api = await startApi((_request, response) => json(response, 404, { error: 'not_found' }));
    const base = `${api.url}/realms/x`;
    expectFailure(
      await init(['oidc', '--set', `issuer=${base}`, '--set', 'clientId=c', ...TRUST], { CLIENT_SECRET: BASIC_SECRET }),
      3,
      `the discovery of ${base} failed (${base}/.well-known/openid-configuration: answered 404 Not Found: {"error":"not_found"}; ${api.url}/.well-known/oauth-authorization-server/realms/x: answered 404 Not Found: {"error":"not_found"}; ${base}/.well-known/oauth-authorization-server: answered 404 Not Found: {"error":"not_found"}); give the token endpoint with --set tokenUrl=URL instead of discovering it`,
      SECRETS,
    );
  });

  it('a document for another issuer, or without a token_endpoint, is refused', async () => {
    const api = await startApi((request, response) =>
      request.path.startsWith('/other')
        ? json(response, 200, { issuer: 'https://evil.example', token_endpoint: 'https://evil.example/token' })
        : request.path.startsWith('/odd')
          ? json(response, 200, { issuer: `${api.url}/odd`, token_endpoint: `${api.url}/odd/tok\nen` })
          : json(response, 200, { issuer: `${api.url}/none` }),
    );
    expectFailure(
      await init(['oidc', '--set', `issuer=${api.url}/odd`, '--set', 'clientId=c', ...TRUST]),
      3,
      new RegExp(
        `^the discovery of ${api.url}/odd failed \\(${api.url}/odd/\\.well-known/openid-configuration: its token_endpoint is not an https:// URL: "${api.url}/odd/tok\\\\nen"; .*\\); give the token endpoint with --set tokenUrl=URL instead of discovering it$`,
      ),
      SECRETS,
    );
    expectFailure(
      await init(['oidc', '--set', `issuer=${api.url}/other`, '--set', 'clientId=c', ...TRUST]),
      3,
      new RegExp(
        `^the discovery of ${api.url}/other failed \\(${api.url}/other/\\.well-known/openid-configuration: the document is for the issuer "https://evil\\.example", not ${api.url}/other; .*\\); give the token endpoint with --set tokenUrl=URL instead of discovering it$`,
      ),
      SECRETS,
    );
    expectFailure(
      await init(['oidc', '--set', `issuer=${api.url}/none`, '--set', 'clientId=c', ...TRUST]),
      3,
      `the discovery document ${api.url}/none/.well-known/openid-configuration of ${api.url}/none names no token_endpoint; give it with --set tokenUrl=URL`,
      SECRETS,
    );
  });

  it('a document past the size limit and a server past --timeout fail in bounded work', async () => {
    const big = await startApi((_request, response) =>
      json(response, 200, { issuer: 'x', pad: 'x'.repeat(300 * 1024) }),
    );
    const large = await init(['oidc', '--set', `issuer=${big.url}`, '--set', 'clientId=c', ...TRUST]);
    expectFailure(
      large,
      3,
      /^the discovery of https:\/\/localhost:\d+ failed \(.*answered with more than 262144 bytes \(a discovery document is a few kB\).*\); give the token endpoint with --set tokenUrl=URL instead of discovering it$/,
      SECRETS,
    );
    const slow = await startApi(() => new Promise(() => {}));
    // The deadline ended it, as its message says (a server that never answers would hold it otherwise).
    const late = await init([
      'oidc',
      '--set',
      `issuer=${slow.url}`,
      '--set',
      'clientId=c',
      '--timeout',
      '1s',
      ...TRUST,
    ]);
    expectFailure(
      late,
      3,
      /^the discovery of https:\/\/localhost:\d+ failed \(.*not tried, the 1s of --timeout had passed\); give the token endpoint with --set tokenUrl=URL instead of discovering it$/,
      SECRETS,
    );
  });

  it('without --set caFile the test CA is not trusted, and the message says to give it', async () => {
    const result = await init(['oidc', '--set', `issuer=${issuer}`, '--set', 'clientId=basic']);
    expectFailure(
      result,
      3,
      /^the discovery of .* failed \(.*not among the trusted CAs \(the system roots\); give --set caFile=PATH with that CA's certificate.*\); give the token endpoint with --set tokenUrl=URL instead of discovering it$/,
      SECRETS,
    );
  });
});
