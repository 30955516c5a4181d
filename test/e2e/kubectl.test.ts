// End to end: the real kubectl reads a real kubeconfig whose user runs our CLI as its exec plugin,
// the CLI calls a real HTTPS token API, and kubectl uses the credential against an HTTPS apiserver
// stand-in that authenticates like the real one (bearer tokens it knows, client certs of its CA).
//
// The plugin is the bin script under the pinned Node 24, or the single binary when
// WEBAPI_CREDENTIAL_BIN is set (see test/helpers/kubectl.ts pluginCommand()).
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startApiServer, type ApiServer, type ApiServerOptions, type UserInfo } from '../helpers/apiserver.js';
import { ROOT } from '../helpers/cli.js';
import {
  KUBECTL_1_27,
  KUBECTL_1_33,
  makeKube,
  pluginCommand,
  runKubectl,
  writeKubeconfig,
  type ExecEntry,
  type Kube,
  type KubectlResult,
} from '../helpers/kubectl.js';
import { makePki } from '../helpers/pki.js';
import { describeWith } from '../helpers/tools.js';
import {
  fakeJwt,
  json,
  startTokenApi,
  type Handler,
  type ReceivedRequest,
  type TokenApi,
} from '../helpers/token-api.js';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const PODS = '/api/v1/namespaces/default/pods';
const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const CLIENT_ID = 'kube-client';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const pki = makePki();
let open: Array<{ close: () => Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(open.map((server) => server.close()));
  open = [];
});

/** A fresh kubeconfig dir (with its own HOME), removed after the test. */
function newKube(): Kube {
  const kube = makeKube();
  open.push({ close: async () => rmSync(kube.dir, { recursive: true, force: true }) });
  return kube;
}

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;
const basic = (id: string, password: string) => `Basic ${Buffer.from(`${id}:${password}`).toString('base64')}`;
const podNames = (stdout: string) =>
  (JSON.parse(stdout) as { kind: string; items: Array<{ metadata: { name: string } }> }).items.map(
    (p) => p.metadata.name,
  );
const form = (request: ReceivedRequest) => Object.fromEntries(new URLSearchParams(request.body));
const execInfoOf = (request: ReceivedRequest) =>
  JSON.parse(form(request)['exec_info'] ?? 'null') as Record<string, unknown>;

/** What kubectl printed and what both servers saw, for assertion messages. */
function context(result: KubectlResult, setup: Setup): string {
  return JSON.stringify(
    {
      kubectl: result,
      tokenApi: setup.tokenApi.requests.map((r) => ({ method: r.method, path: r.path, body: r.body })),
      apiserver: setup.apiserver.requests.map(({ body: _body, ...rest }) => rest),
    },
    null,
    1,
  );
}

/**
 * An OAuth-style client-credentials endpoint: POST /oauth/token with HTTP Basic client auth.
 * Issues a fresh JWT-shaped token per call (recorded in `issued`); a wrong secret gets 401.
 */
function oauthHandler(clientSecret: string, issued: Set<string>): Handler {
  return (request, response) => {
    if (request.method !== 'POST' || request.path !== '/oauth/token')
      return json(response, 404, { error: 'not_found' });
    if (request.headers.authorization !== basic(CLIENT_ID, clientSecret)) {
      return json(response, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
    }
    const token = fakeJwt(Math.floor(Date.now() / 1000) + 3600, { jti: randomBytes(8).toString('hex') });
    issued.add(token);
    return json(response, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
  };
}

/** The plugin config for oauthHandler. */
function oauthConfig(
  tokenApi: TokenApi,
  extraForm: Record<string, string> = {},
): { webAPIProviderConfig: Record<string, unknown> } {
  return {
    webAPIProviderConfig: {
      method: 'POST',
      url: `${tokenApi.url}/oauth/token`,
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      headers: { Authorization: 'Basic {{ base64(env.CLIENT_ID + ":" + env.CLIENT_SECRET) }}' },
      form: {
        grant_type: 'client_credentials',
        // What client-go handed the plugin, echoed to the token API so the test can see it.
        exec_info: '{{ env.KUBERNETES_EXEC_INFO }}',
        ...extraForm,
      },
      tls: { caFile: pki.ca.certFile },
    },
  };
}

interface Setup {
  tokenApi: TokenApi;
  apiserver: ApiServer;
  issued: Set<string>;
}

async function servers(
  handler: (issued: Set<string>) => Handler,
  apiserverOptions: (issued: Set<string>) => ApiServerOptions,
): Promise<Setup> {
  const issued = new Set<string>();
  const tokenApi = await startTokenApi(handler(issued));
  open.push(tokenApi);
  const apiserver = await startApiServer(apiserverOptions(issued));
  open.push(apiserver);
  return { tokenApi, apiserver, issued };
}

/** A kubeconfig whose exec entry runs the plugin with `--config <file holding config>`, then `exec.args`. */
function kubeconfigWithConfigFile(setup: Setup, config: unknown, exec: ExecEntry): Kube {
  const kube = newKube();
  const configFile = join(kube.dir, 'webapi-credential.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const args = ['--config', configFile, ...(exec.args ?? [])];
  return writeKubeconfig(kube, {
    server: setup.apiserver.url,
    caFile: setup.apiserver.caFile,
    exec: { ...exec, args },
  });
}

/**
 * A bearer-token setup: the OAuth token API, an apiserver that accepts exactly the tokens it issued
 * (as `user`; none at all with `rejectAll`), and a v1 kubeconfig.
 */
async function bearerSetup(options: { user?: UserInfo; rejectAll?: boolean } = {}) {
  const clientSecret = secret('client-secret');
  const accepts = (issued: Set<string>): ApiServerOptions['accepts'] =>
    options.rejectAll
      ? new Set<string>()
      : options.user
        ? (token) => (issued.has(token) ? options.user : undefined)
        : issued;
  const setup = await servers(
    (issued) => oauthHandler(clientSecret, issued),
    (issued) => ({ accepts: accepts(issued) }),
  );
  const kube = kubeconfigWithConfigFile(setup, oauthConfig(setup.tokenApi, { scope: '{{ vars.scope }}' }), {
    apiVersion: V1,
    interactiveMode: 'Never',
    args: ['--set', 'scope=kubernetes'],
    env: { CLIENT_ID, CLIENT_SECRET: clientSecret },
  });
  return { ...setup, kube, clientSecret };
}

describeWith(KUBECTL_1_33, KUBECTL_1_27)('kubectl runs webapi-credential from a kubeconfig exec entry', () => {
  it('kubectl 1.33 with exec apiVersion v1 lists the pods using the bearer token the token API issued', async () => {
    const { kube, clientSecret, ...setup } = await bearerSetup();

    const result = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', PODS]);

    expect(result.code, context(result, setup)).toBe(0);
    expect(result.stderr).toBe('');
    expect(podNames(result.stdout)).toEqual(['web-0', 'web-1']);
    // The plugin ran once and sent exactly the request the config describes, with the secret from exec.env.
    expect(setup.tokenApi.requests).toHaveLength(1);
    const [call] = setup.tokenApi.requests;
    expect(call!.method).toBe('POST');
    expect(call!.url).toBe('/oauth/token');
    expect(call!.headers.authorization).toBe(basic(CLIENT_ID, clientSecret));
    expect(call!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(call!.headers['user-agent']).toBe(`webapi-credential/${VERSION}`);
    expect(form(call!)).toEqual({
      grant_type: 'client_credentials',
      scope: 'kubernetes',
      // client-go's JSON encoder ends the document with a newline.
      exec_info: `{"kind":"ExecCredential","apiVersion":"${V1}","spec":{"interactive":false}}\n`,
    });
    // kubectl made exactly one request, authenticated with the token just issued.
    const [issued] = [...setup.issued];
    expect(
      setup.apiserver.requests.map(({ method, path, auth, token, status }) => ({ method, path, auth, token, status })),
    ).toEqual([{ method: 'GET', path: PODS, auth: 'bearer', token: issued, status: 200 }]);
    expect(result.stdout + result.stderr).not.toContain(clientSecret);
  });

  it('every kubectl command runs the plugin anew and kubectl auth whoami reports the user of the issued token', async () => {
    const { kube, ...setup } = await bearerSetup({
      user: { username: 'alice@example.com', groups: ['devs', 'system:authenticated'] },
    });

    const first = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', PODS]);
    const second = await runKubectl(KUBECTL_1_33, kube, ['auth', 'whoami', '-o', 'json']);

    expect(first.code, context(first, setup)).toBe(0);
    expect(second.code, context(second, setup)).toBe(0);
    expect(second.stderr).toBe('');
    expect(JSON.parse(second.stdout)).toEqual({
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: 'alice@example.com', groups: ['devs', 'system:authenticated'] } },
    });
    // No cache across processes (ours is off by default, client-go's lives in memory): two runs, two tokens.
    expect(setup.tokenApi.requests).toHaveLength(2);
    const tokens = [...setup.issued];
    expect(tokens).toHaveLength(2);
    expect(
      setup.apiserver.requests.map(({ method, path, token, status }) => ({ method, path, token, status })),
    ).toEqual([
      { method: 'GET', path: PODS, token: tokens[0], status: 200 },
      { method: 'POST', path: SELF_SUBJECT_REVIEWS, token: tokens[1], status: 201 },
    ]);
  });

  it('kubectl 1.27 with exec apiVersion v1beta1 gets a v1beta1 credential and lists the pods', async () => {
    const clientSecret = secret('client-secret');
    const setup = await servers(
      (issued) => oauthHandler(clientSecret, issued),
      (issued) => ({ accepts: issued }),
    );
    // v1beta1 needs no interactiveMode; kubectl 1.27 then decides by whether stdin is a terminal.
    const kube = kubeconfigWithConfigFile(setup, oauthConfig(setup.tokenApi), {
      apiVersion: V1BETA1,
      env: { CLIENT_ID, CLIENT_SECRET: clientSecret },
    });

    const result = await runKubectl(KUBECTL_1_27, kube, ['get', '--raw', PODS]);

    expect(result.code, context(result, setup)).toBe(0);
    expect(result.stderr).toBe('');
    expect(podNames(result.stdout)).toEqual(['web-0', 'web-1']);
    expect(setup.tokenApi.requests).toHaveLength(1);
    expect(setup.tokenApi.requests[0]!.headers.authorization).toBe(basic(CLIENT_ID, clientSecret));
    expect(execInfoOf(setup.tokenApi.requests[0]!)).toEqual({
      kind: 'ExecCredential',
      apiVersion: V1BETA1,
      spec: { interactive: false },
    });
    expect(
      setup.apiserver.requests.map(({ path, auth, token, userAgent }) => ({
        path,
        auth,
        token,
        agent: userAgent?.split(' ')[0],
      })),
    ).toEqual([{ path: PODS, auth: 'bearer', token: [...setup.issued][0], agent: 'kubectl.1.27/v1.27.16' }]);
  });

  it('a Pinniped-style TokenCredentialRequest answer gives kubectl a client certificate that the apiserver authenticates', async () => {
    const upstreamToken = secret('upstream-id-token');
    const expires = new Date(Date.now() + 5 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const handler: Handler = (request, response) => {
      const body = JSON.parse(request.body) as { spec?: { token?: string } };
      if (body.spec?.token !== upstreamToken)
        return json(response, 401, { kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
      json(response, 201, {
        kind: 'TokenCredentialRequest',
        apiVersion: 'login.concierge.pinniped.dev/v1alpha1',
        metadata: { creationTimestamp: null },
        spec: {
          authenticator: { apiGroup: 'authentication.concierge.pinniped.dev', kind: 'JWTAuthenticator', name: 'corp' },
        },
        status: {
          credential: {
            expirationTimestamp: expires,
            clientCertificateData: pki.client.cert,
            clientKeyData: pki.client.key,
          },
        },
      });
    };
    const setup = await servers(
      () => handler,
      () => ({ clientCa: pki.clientCa.cert }),
    );
    const config = {
      webAPIProviderConfig: {
        method: 'POST',
        url: `${setup.tokenApi.url}/apis/login.concierge.pinniped.dev/v1alpha1/tokencredentialrequests`,
        json: {
          apiVersion: 'login.concierge.pinniped.dev/v1alpha1',
          kind: 'TokenCredentialRequest',
          spec: {
            token: '{{ env.UPSTREAM_TOKEN }}',
            authenticator: {
              apiGroup: 'authentication.concierge.pinniped.dev',
              kind: 'JWTAuthenticator',
              name: 'corp',
            },
          },
        },
        clientCertificateDataPath: '$.status.credential.clientCertificateData',
        clientKeyDataPath: '$.status.credential.clientKeyData',
        expiryPath: '$.status.credential.expirationTimestamp',
        tls: { caFile: pki.ca.certFile },
      },
    };
    const kube = kubeconfigWithConfigFile(setup, config, {
      apiVersion: V1,
      interactiveMode: 'Never',
      env: { UPSTREAM_TOKEN: upstreamToken },
    });

    const pods = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', PODS]);
    const whoami = await runKubectl(KUBECTL_1_33, kube, ['auth', 'whoami', '-o', 'json']);

    expect(pods.code, context(pods, setup)).toBe(0);
    expect(podNames(pods.stdout)).toEqual(['web-0', 'web-1']);
    expect(whoami.code, context(whoami, setup)).toBe(0);
    expect((JSON.parse(whoami.stdout) as { status: unknown }).status).toEqual({
      userInfo: { username: 'test-user', groups: ['system:masters', 'system:authenticated'] },
    });
    expect(setup.tokenApi.requests).toHaveLength(2);
    const call = setup.tokenApi.requests[0]!;
    expect(call.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call.body)).toEqual({
      apiVersion: 'login.concierge.pinniped.dev/v1alpha1',
      kind: 'TokenCredentialRequest',
      spec: {
        token: upstreamToken,
        authenticator: { apiGroup: 'authentication.concierge.pinniped.dev', kind: 'JWTAuthenticator', name: 'corp' },
      },
    });
    // Both requests came with the client certificate and no Authorization header.
    expect(
      setup.apiserver.requests.map(({ method, path, auth, token, certCN, status }) => ({
        method,
        path,
        auth,
        token,
        certCN,
        status,
      })),
    ).toEqual([
      { method: 'GET', path: PODS, auth: 'certificate', token: undefined, certCN: 'test-user', status: 200 },
      {
        method: 'POST',
        path: SELF_SUBJECT_REVIEWS,
        auth: 'certificate',
        token: undefined,
        certCN: 'test-user',
        status: 201,
      },
    ]);
    for (const result of [pods, whoami]) {
      expect(result.stderr).toBe('');
      expect(result.stdout).not.toContain(upstreamToken);
      expect(result.stdout).not.toContain('PRIVATE KEY');
    }
  });

  it('with provideClusterInfo and no --config the plugin reads its config from the cluster extension and renders cluster.server', async () => {
    const clientSecret = secret('client-secret');
    const setup = await servers(
      (issued) => oauthHandler(clientSecret, issued),
      (issued) => ({ accepts: issued }),
    );
    const config = oauthConfig(setup.tokenApi, {
      audience: '{{ cluster.server }}',
      ca: '{{ base64decode(cluster["certificate-authority-data"]) }}',
    });
    const kube = writeKubeconfig(newKube(), {
      server: setup.apiserver.url,
      caFile: setup.apiserver.caFile,
      exec: {
        apiVersion: V1,
        args: ['--config-from-cluster'],
        interactiveMode: 'Never',
        provideClusterInfo: true,
        env: { CLIENT_ID, CLIENT_SECRET: clientSecret },
      },
      // Another tool's key next to ours: the plugin must ignore it.
      execExtension: { ...config, otherTool: { enabled: true } },
    });

    const result = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', PODS]);

    expect(result.code, context(result, setup)).toBe(0);
    expect(result.stderr).toBe('');
    expect(podNames(result.stdout)).toEqual(['web-0', 'web-1']);
    expect(setup.tokenApi.requests).toHaveLength(1);
    const call = setup.tokenApi.requests[0]!;
    expect(call.headers.authorization).toBe(basic(CLIENT_ID, clientSecret));
    const fields = form(call);
    expect(fields['audience']).toBe(setup.apiserver.url);
    // client-go reads the kubeconfig's certificate-authority file and passes its data.
    expect(fields['ca']).toBe(pki.ca.cert);
    expect(execInfoOf(call)).toEqual({
      kind: 'ExecCredential',
      apiVersion: V1,
      spec: {
        interactive: false,
        cluster: {
          server: setup.apiserver.url,
          'certificate-authority-data': Buffer.from(pki.ca.cert).toString('base64'),
          config: { ...config, otherTool: { enabled: true } },
        },
      },
    });
    expect(setup.apiserver.requests.map(({ path, token, status }) => ({ path, token, status }))).toEqual([
      { path: PODS, token: [...setup.issued][0], status: 200 },
    ]);
  });

  it('when the token API answers 401 kubectl fails and passes on our one-line message without the secret', async () => {
    const clientSecret = secret('client-secret');
    // A careless token API that echoes the secret it was sent: the plugin must redact it.
    const handler: Handler = (request, response) => {
      const password = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':')[1];
      json(response, 401, { error: 'invalid_client', error_description: `client secret ${password} is revoked` });
    };
    const setup = await servers(
      () => handler,
      () => ({}),
    );
    const kube = kubeconfigWithConfigFile(setup, oauthConfig(setup.tokenApi), {
      apiVersion: V1,
      interactiveMode: 'Never',
      env: { CLIENT_ID, CLIENT_SECRET: clientSecret },
    });

    const result = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', PODS]);

    expect(result.code, context(result, setup)).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      'webapi-credential: the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"client secret [REDACTED] is revoked"}; check env.CLIENT_ID, env.CLIENT_SECRET and env.KUBERNETES_EXEC_INFO',
      `Unable to connect to the server: getting credentials: exec: executable ${pluginCommand().command} failed with exit code 3`,
      '',
    ]);
    expect(result.stderr).not.toContain(clientSecret);
    // The token API did get the secret: the 401 is its verdict, not a missing value.
    expect(setup.tokenApi.requests).toHaveLength(1);
    expect(setup.tokenApi.requests[0]!.headers.authorization).toBe(basic(CLIENT_ID, clientSecret));
    // No retry on 401, and kubectl never reached the apiserver.
    expect(setup.apiserver.requests).toEqual([]);
  });

  it('when the apiserver rejects the issued token kubectl fails with Unauthorized after running the plugin again', async () => {
    const { kube, clientSecret, ...setup } = await bearerSetup({ rejectAll: true });

    const result = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', PODS]);

    expect(result.code, context(result, setup)).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error: You must be logged in to the server (Unauthorized)\n');
    const tokens = [...setup.issued];
    expect(
      setup.apiserver.requests.map(({ method, path, auth, token, status }) => ({ method, path, auth, token, status })),
    ).toEqual([{ method: 'GET', path: PODS, auth: 'none', token: tokens[0], status: 401 }]);
    // client-go answers a 401 by running the plugin again (for the next request); kubectl does not retry.
    expect(setup.tokenApi.requests).toHaveLength(2);
    expect(tokens).toHaveLength(2);
    expect(result.stderr).not.toContain(clientSecret);
  });
});
