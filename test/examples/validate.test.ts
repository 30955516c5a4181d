// Every example config validates twice: against the shipped JSON Schema (what an editor checks,
// through the yaml-language-server comment each file starts with) and with `webapi-credential
// validate`, given dummy values for the env and --set values its README lists.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { schemaErrors, type Schema } from '../helpers/json-schema.js';
import {
  EXAMPLES_DIR,
  MANIFEST_SETS,
  examplePath,
  readArgoCdSecret,
  readText,
  readYaml,
  run,
  scratchFile,
} from '../helpers/examples.js';
import { ROOT } from '../helpers/cli.js';
import { serviceAccountKey } from '../helpers/google-apis.js';
import { selfSignedRsa } from '../helpers/pki.js';

const SCHEMA = JSON.parse(readFileSync(resolve(ROOT, 'schema/webapi-credential.schema.json'), 'utf8')) as Schema;
const TOKEN_FILE = scratchFile('dummy-token', 'dummy-token\n');
// jwt() signs even in validate: the configs that call it get real (throwaway) keys.
const GOOGLE_KEY_FILE = scratchFile(
  'google-key.json',
  JSON.stringify(serviceAccountKey('argocd@acme-prod.iam.gserviceaccount.com').fields),
);
const CERTIFICATE = selfSignedRsa('dummy');
const KUBERNETES_EXEC_INFO = JSON.stringify({
  kind: 'ExecCredential',
  apiVersion: 'client.authentication.k8s.io/v1',
  spec: { interactive: false, cluster: { server: 'https://k8s.example.com' } },
});

/** file -> [env, --set values, the request `validate` names]. */
const CASES: Record<string, [Record<string, string>, string[], string]> = {
  'upbound/config.yaml': [
    { UPBOUND_TOKEN: 'dummy' },
    ['org=acme'],
    'POST https://auth.upbound.io/apis/tokenexchange.upbound.io/v1alpha1/orgscopedtokens',
  ],
  'keycloak/config.yaml': [
    { CLIENT_SECRET: 'dummy' },
    ['issuer=https://keycloak.example.com/realms/platform', 'clientId=argocd'],
    'POST https://keycloak.example.com/realms/platform/protocol/openid-connect/token',
  ],
  'keycloak/config-client-secret-post.yaml': [
    { CLIENT_SECRET: 'dummy' },
    ['issuer=https://keycloak.example.com/realms/platform', 'clientId=argocd'],
    'POST https://keycloak.example.com/realms/platform/protocol/openid-connect/token',
  ],
  'keycloak/config-private-key-jwt.yaml': [
    {},
    ['issuer=https://keycloak.example.com/realms/platform', 'clientId=argocd', `keyFile=${CERTIFICATE.keyFile}`],
    'POST https://keycloak.example.com/realms/platform/protocol/openid-connect/token',
  ],
  'oidc/config.yaml': [
    { CLIENT_SECRET: 'dummy' },
    ['tokenUrl=https://login.example.com/oauth2/v1/token', 'clientId=argocd'],
    'POST https://login.example.com/oauth2/v1/token',
  ],
  'oidc/config-client-secret-post.yaml': [
    { CLIENT_SECRET: 'dummy' },
    ['tokenUrl=https://login.example.com/oauth2/v1/token', 'clientId=argocd'],
    'POST https://login.example.com/oauth2/v1/token',
  ],
  'oidc-device/config.yaml': [
    {},
    [
      'tokenUrl=https://login.example.com/oauth2/v1/token',
      'deviceUrl=https://login.example.com/oauth2/v1/device/authorize',
      'clientId=kubectl',
    ],
    'POST https://login.example.com/oauth2/v1/token',
  ],
  'oidc-login/config.yaml': [
    {},
    [
      'tokenUrl=https://login.example.com/oauth2/v1/token',
      'authorizationUrl=https://login.example.com/oauth2/v1/authorize',
      'deviceUrl=https://login.example.com/oauth2/v1/device/authorize',
      'clientId=kubectl',
    ],
    'POST https://login.example.com/oauth2/v1/token\nbrowser login: GET https://login.example.com/oauth2/v1/authorize?client_id=kubectl&scope=openid+offline_access&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A8000&state=[state]&nonce=[nonce]&code_challenge=[code_challenge]&code_challenge_method=S256',
  ],
  'oidc/config-private-key-jwt.yaml': [
    {},
    ['tokenUrl=https://login.example.com/oauth2/v1/token', 'clientId=argocd', `keyFile=${CERTIFICATE.keyFile}`],
    'POST https://login.example.com/oauth2/v1/token',
  ],
  'azure-ad/config.yaml': [
    { AZURE_CLIENT_SECRET: 'dummy' },
    ['tenantId=contoso.onmicrosoft.com', 'clientId=argocd'],
    'POST https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token',
  ],
  'entra-id-certificate/config.yaml': [
    {},
    [
      'tenantId=contoso.onmicrosoft.com',
      'clientId=argocd',
      `keyFile=${CERTIFICATE.keyFile}`,
      `certFile=${CERTIFICATE.certFile}`,
    ],
    'POST https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token',
  ],
  // The key file is secret where it reaches the assertion, not its token_uri where the URL shows the same text.
  'google-service-account/config.yaml': [
    { GOOGLE_APPLICATION_CREDENTIALS: GOOGLE_KEY_FILE },
    [],
    'POST https://oauth2.googleapis.com/token',
  ],
  'google-workload-identity/config.yaml': [
    {},
    [
      'projectNumber=123456789012',
      'poolId=argocd',
      'providerId=prod-cluster',
      'serviceAccount=argocd@acme-prod.iam.gserviceaccount.com',
      `subjectTokenFile=${TOKEN_FILE}`,
    ],
    'steps.sts POST https://sts.googleapis.com/v1/token, then POST https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/argocd@acme-prod.iam.gserviceaccount.com:generateAccessToken',
  ],
  'rfc8693-token-exchange/config.yaml': [
    {},
    [
      'tokenUrl=https://sts.example.com/oauth2/token',
      'audience=https://k8s.example.com',
      `subjectTokenFile=${TOKEN_FILE}`,
    ],
    'POST https://sts.example.com/oauth2/token',
  ],
  'vault/config.yaml': [
    { VAULT_TOKEN: 'dummy' },
    ['vaultAddr=https://vault.example.com:8200', 'role=argocd', 'namespace=apps'],
    'POST https://vault.example.com:8200/v1/kubernetes/creds/argocd',
  ],
  // A relative path given by --set resolves against the current directory (the repository's here).
  'vault/config-kubernetes-auth.yaml': [
    {},
    [
      'vaultAddr=https://vault.example.com:8200',
      'role=argocd',
      'namespace=apps',
      'tokenFile=test/fixtures/service-account-token',
    ],
    'steps.login POST https://vault.example.com:8200/v1/auth/kubernetes/login, then POST https://vault.example.com:8200/v1/kubernetes/creds/argocd',
  ],
  'pinniped/config.yaml': [
    { PINNIPED_TOKEN: 'dummy', KUBERNETES_EXEC_INFO },
    ['authenticator=corp-oidc'],
    'POST https://k8s.example.com/apis/login.concierge.pinniped.dev/v1alpha1/tokencredentialrequests',
  ],
  'rancher/config.yaml': [
    { RANCHER_PASSWORD: 'dummy' },
    ['rancherUrl=https://rancher.example.com', 'username=argocd'],
    'POST https://rancher.example.com/v3-public/localProviders/local?action=login',
  ],
};

/** Every config*.yaml under examples/. */
function configFiles(): string[] {
  return readdirSync(EXAMPLES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => /(^|\/)config[^/]*\.yaml$/.test(file))
    .sort();
}

describe('the example configs', () => {
  it('are exactly the ones this test knows how to validate', () => {
    expect(configFiles()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))('%s names the shipped schema for editors and passes it', (file) => {
    const first = readText(file).split('\n')[0]!;
    expect(first).toBe('# yaml-language-server: $schema=../../schema/webapi-credential.schema.json');
    expect(existsSync(resolve(dirname(examplePath(file)), first.slice(first.indexOf('=') + 1)))).toBe(true);
    expect(schemaErrors(SCHEMA, readYaml(file))).toEqual([]);
  });

  it.each(Object.entries(CASES))(
    '%s passes `webapi-credential validate` with dummy values',
    async (file, [env, sets, request]) => {
      const result = await run(
        ['validate', '--config', examplePath(file), ...sets.flatMap((pair) => ['--set', pair])],
        env,
      );
      expect(result).toEqual({
        code: 0,
        stdout: `config from --config ${examplePath(file)} is valid: ${request}\n`,
        stderr: '',
      });
    },
  );

  it.each(MANIFEST_SETS)('the configs inside the Argo CD secrets of $provider/$config pass the schema too', (set) => {
    const classic = readArgoCdSecret(set.provider, set.argocd).execProviderConfig;
    const modern = readArgoCdSecret(set.provider, set.argocd35).execProviderConfig;
    expect(classic.args[0]).toBe('--config-inline');
    expect(schemaErrors(SCHEMA, YAML.parse(classic.args[1]!))).toEqual([]);
    expect(schemaErrors(SCHEMA, modern.config)).toEqual([]);
  });

  it('the schema check can fail: a misspelt field in an example config is caught', () => {
    const document = readYaml('vault/config.yaml') as { webAPIProviderConfig: Record<string, unknown> };
    document.webAPIProviderConfig['tokenpath'] = document.webAPIProviderConfig['tokenPath'];
    expect(schemaErrors(SCHEMA, document)).toEqual(['$.webAPIProviderConfig: additionalProperties tokenpath']);
  });
});
