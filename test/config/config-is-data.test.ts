// A config is data: whatever its templates say, from a file, inline or from the cluster entry, no
// program runs. Each exploit below ran a command with the Eta templates (they compiled templates
// to JavaScript); now each is refused when the config loads, with the field and the construct named.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { execInfo, expectFailure, provider, V1, writeTemp } from '../helpers/integration.js';

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-pwned-'));
const pwned = join(dir, 'pwned');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EXPLOITS: Array<[string, string, string]> = [
  [
    'a global reached by name',
    `globalThis.process.getBuiltinModule("child_process").execSync("touch ${pwned}")`,
    'calling a method (execSync) is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
  ],
  [
    "a helper's constructor",
    `urlencode.constructor("return process")().getBuiltinModule("child_process").execSync("touch ${pwned}")`,
    'calling a method (execSync) is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
  ],
  [
    'a constructor reached through data',
    'cluster.constructor',
    'constructor is not data: only the own properties of objects and lists can be read',
  ],
  [
    'a list literal constructor',
    '[].constructor.constructor("return process")()',
    'calling a method is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
  ],
  ['__proto__', 'vars.__proto__', '__proto__ is not data: only the own properties of objects and lists can be read'],
  ['this', 'this', 'this is not supported'],
  ['an arrow function', '(() => 1)()', 'Unexpected "=" at character 4'],
  [
    'require',
    `require("child_process").execSync("touch ${pwned}")`,
    'calling a method (execSync) is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
  ],
  [
    'process.env',
    'process.env.HOME',
    'process is not available: a template reads only env, vars, cluster, steps and calls the helpers',
  ],
];

// Nothing may be sent: an address where nothing listens would turn a sent request into exit 3.
const config = (expression: string) => ({
  method: 'POST',
  url: 'https://127.0.0.1:9/token',
  tokenPath: '$.access_token',
  headers: { 'X-Exploit': `{{ ${expression} }}` },
});
const message = (origin: string, what: string, expression: string) =>
  `config from ${origin} is invalid: webAPIProviderConfig.headers.X-Exploit: {{ ${expression} }}: ${what}`;

describe('a config cannot run code', () => {
  describe.each(EXPLOITS)('%s', (_name, expression, what) => {
    it.each([['get-token'], ['validate'], ['render']])(
      'is refused by %s from a file, creating nothing',
      async (command) => {
        const file = writeTemp('exploit.json', provider(config(expression)));
        const result = await runInProcess([command, '--config', file]);
        expectFailure(result, 2, message(`--config ${file}`, what, expression));
        expect(existsSync(pwned)).toBe(false);
      },
    );

    it('is refused inline, creating nothing', async () => {
      const result = await runInProcess(['--config-inline', provider(config(expression))]);
      expectFailure(result, 2, message('--config-inline', what, expression));
      expect(existsSync(pwned)).toBe(false);
    });

    it('is refused from the cluster entry with --config-from-cluster, creating nothing', async () => {
      const env = {
        KUBERNETES_EXEC_INFO: execInfo(V1, {
          server: 'https://k8s.example',
          config: { webAPIProviderConfig: config(expression) },
        }),
      };
      const result = await runInProcess(['--config-from-cluster'], { env });
      expectFailure(result, 2, message('KUBERNETES_EXEC_INFO spec.cluster.config', what, expression));
      expect(existsSync(pwned)).toBe(false);
    });
  });
});

describe('a cluster entry cannot speak for the user', () => {
  const benign = {
    method: 'POST',
    url: 'https://127.0.0.1:9/token',
    tokenPath: '$.access_token',
    form: { secret: '{{ env.API_KEY }}' },
  };

  it('ignores a config in the cluster entry without --config-from-cluster, and names the flag', async () => {
    const env = {
      KUBERNETES_EXEC_INFO: execInfo(V1, { server: 'https://k8s.example', config: { webAPIProviderConfig: benign } }),
    };
    const result = await runInProcess([], { env });
    expectFailure(
      result,
      2,
      "no config: the kubeconfig cluster entry carries a webAPIProviderConfig, but it is used only with --config-from-cluster in the exec entry's args (the cluster entry may come from another file or party than the user entry); add the flag, or pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE",
    );
  });

  it('says to set provideClusterInfo when --config-from-cluster finds no cluster info', async () => {
    const result = await runInProcess(['--config-from-cluster'], { env: { KUBERNETES_EXEC_INFO: execInfo(V1) } });
    expectFailure(
      result,
      2,
      'no config: --config-from-cluster, but KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry (Argo CD >= 3.5 sets it for execProviderConfig.config)',
    );
  });

  it('says the extension is missing when the cluster came without it', async () => {
    const result = await runInProcess(['--config-from-cluster'], {
      env: { KUBERNETES_EXEC_INFO: execInfo(V1, { server: 'https://k8s.example' }) },
    });
    expectFailure(
      result,
      2,
      'no config: --config-from-cluster, but the cluster entry has no webAPIProviderConfig in its extension client.authentication.k8s.io/exec (client-go sent the cluster without it)',
    );
  });

  it('tells the cases apart without the flag too: run by hand, no cluster info, a cluster without the extension', async () => {
    const none = await runInProcess([], { env: {} });
    expectFailure(
      none,
      2,
      'no config: pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE, or take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry',
    );
    const noClusterInfo = await runInProcess([], { env: { KUBERNETES_EXEC_INFO: execInfo(V1) } });
    expectFailure(
      noClusterInfo,
      2,
      'no config: pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE, or take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry (client-go sent no cluster info: the exec entry has no provideClusterInfo: true)',
    );
    const clusterOnly = await runInProcess([], {
      env: { KUBERNETES_EXEC_INFO: execInfo(V1, { server: 'https://k8s.example' }) },
    });
    expectFailure(
      clusterOnly,
      2,
      'no config: pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE, or take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry (client-go sent the cluster, without that extension)',
    );
  });
});
