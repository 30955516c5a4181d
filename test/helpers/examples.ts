// Shared pieces of test/examples/: reading the example files, stand-ins with a certificate for the
// example hosts, and the assertions on the ExecCredential they yield.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import YAML from 'yaml';
import { ROOT, leaks, runCli, type CliResult } from './cli.js';
import { exampleHostsCert, startConnectProxy } from './example-hosts.js';
import type { ExecEntry } from './exec-plugin.js';
import { makePki } from './pki.js';
import { startTokenApi, type Handler, type TokenApi } from './token-api.js';

export const EXAMPLES_DIR = join(ROOT, 'examples');
export const PROVIDERS = [
  'upbound',
  'keycloak',
  'azure-ad',
  'entra-id-certificate',
  'google-service-account',
  'google-workload-identity',
  'rfc8693-token-exchange',
  'vault',
  'pinniped',
  'rancher',
] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * A config of an example with the manifests that carry it: config.yaml with kubeconfig.yaml and
 * the two Argo CD secrets, or a variant's config-<variant>.yaml with kubeconfig-<variant>.yaml,
 * argocd-cluster-secret-<variant>.yaml and argocd-cluster-secret-<variant>-3.5.yaml.
 */
export interface ManifestSet {
  /** provider, or provider-variant */
  name: string;
  provider: Provider;
  config: string;
  kubeconfig: string;
  argocd: string;
  argocd35: string;
  /** Where the kubeconfig expects the config file. */
  installedAt: string;
}

function manifestSet(provider: Provider, variant?: string): ManifestSet {
  const suffix = variant === undefined ? '' : `-${variant}`;
  return {
    name: `${provider}${suffix}`,
    provider,
    config: `config${suffix}.yaml`,
    kubeconfig: `kubeconfig${suffix}.yaml`,
    argocd: `argocd-cluster-secret${suffix}.yaml`,
    argocd35: `argocd-cluster-secret${suffix}-3.5.yaml`,
    installedAt: `/etc/webapi-credential/${provider}${suffix}.yaml`,
  };
}

export const MANIFEST_SETS: ManifestSet[] = [
  ...PROVIDERS.map((provider) => manifestSet(provider)),
  manifestSet('keycloak', 'private-key-jwt'),
  manifestSet('vault', 'kubernetes-auth'),
];

export const V1 = 'client.authentication.k8s.io/v1';
export const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const PREFIX = 'webapi-credential: ';

/** Trust for the test CA without a tls.caFile in the config: how a private CA is added system-wide. */
export const TRUST_TEST_CA = { NODE_EXTRA_CA_CERTS: makePki().ca.certFile };

export const examplePath = (...parts: string[]) => join(EXAMPLES_DIR, ...parts);
export const readText = (...parts: string[]) => readFileSync(examplePath(...parts), 'utf8');
export const readYaml = (...parts: string[]): unknown => YAML.parse(readText(...parts));

export interface ArgoCdSecret {
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  name: string;
  server: string;
  execProviderConfig: ExecEntry & { installHint?: string; env: Record<string, string>; args: string[] };
  tlsClientConfig?: { caData?: string };
}

/** An Argo CD declarative cluster secret, with stringData.config parsed as Argo CD does (JSON). */
export function readArgoCdSecret(...parts: string[]): ArgoCdSecret {
  const secret = readYaml(...parts) as {
    kind: string;
    metadata: ArgoCdSecret['metadata'];
    stringData: Record<string, string>;
  };
  expect(secret.kind).toBe('Secret');
  expect(secret.metadata.labels['argocd.argoproj.io/secret-type']).toBe('cluster');
  const config = JSON.parse(secret.stringData['config']!) as Pick<
    ArgoCdSecret,
    'execProviderConfig' | 'tlsClientConfig'
  >;
  return {
    metadata: secret.metadata,
    name: secret.stringData['name']!,
    server: secret.stringData['server']!,
    ...config,
  };
}

export interface Kubeconfig {
  server: string;
  exec: ExecEntry & { interactiveMode?: string };
}

/** The current context's cluster and user exec entry of a kubeconfig. */
export function readKubeconfig(text: string): Kubeconfig {
  const config = YAML.parse(text) as {
    clusters: Array<{ name: string; cluster: { server: string } }>;
    users: Array<{ name: string; user: { exec: Kubeconfig['exec'] } }>;
    contexts: Array<{ name: string; context: { cluster: string; user: string } }>;
    'current-context': string;
  };
  const context = config.contexts.find((c) => c.name === config['current-context'])!.context;
  return {
    server: config.clusters.find((c) => c.name === context.cluster)!.cluster.server,
    exec: config.users.find((u) => u.name === context.user)!.user.exec,
  };
}

/** Stand-ins (with the example hosts' certificate), all closed after the test file. */
export function standIns(): (handler: Handler) => Promise<TokenApi> {
  const started: TokenApi[] = [];
  afterAll(async () => {
    await Promise.all(started.map((api) => api.close()));
  });
  return async (handler) => {
    const api = await startTokenApi(handler, { serverCert: exampleHostsCert() });
    started.push(api);
    return api;
  };
}

/**
 * The real host names of an example (oauth2.googleapis.com, …) routed to stand-ins through a CONNECT
 * proxy, so the example's config runs unmodified: the environment that sends the plugin through it.
 * Closed after the test file.
 */
export function realHosts(): (routes: Record<string, TokenApi>) => Promise<{ HTTPS_PROXY: string }> {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
  });
  return async (routes) => {
    const proxy = await startConnectProxy(
      Object.fromEntries(Object.entries(routes).map(([host, api]) => [host, api.port])),
    );
    closers.push(proxy.close);
    return { HTTPS_PROXY: proxy.url };
  };
}

const scratch = mkdtempSync(join(tmpdir(), 'webapi-credential-examples-'));
let counter = 0;

/** A new file holding `content` in this run's scratch directory. */
export function scratchFile(name: string, content: string): string {
  const path = join(scratch, `${++counter}-${name}`);
  writeFileSync(path, content);
  return path;
}

/** A fresh, empty HOME (the cache of --cache lands there). */
export function scratchHome(): string {
  return mkdtempSync(join(scratch, 'home-'));
}

/** The example's config with `mutate` applied, as --config-inline text. */
export function mutated(
  provider: Provider,
  mutate: (config: Record<string, unknown>) => void,
  file = 'config.yaml',
): string {
  const document = readYaml(provider, file) as { webAPIProviderConfig: Record<string, unknown> };
  mutate(document.webAPIProviderConfig);
  return JSON.stringify(document);
}

/** Runs the CLI with `args` in `env` plus trust for the test CA. */
export function run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { env: { ...TRUST_TEST_CA, ...env } });
}

/** RFC 3339 to the second, as the ExecCredential carries it. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The JWT's exp claim, in seconds. */
export function jwtExp(token: string): number {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number }).exp;
}

/**
 * The ExecCredential printed for an expires_in answer: the plugin reads the clock between `before`
 * and `after`, and reports `lifetime` seconds minus the 60 s margin, rounded down to the second.
 */
export function expectExpiresIn(
  expirationTimestamp: string | undefined,
  window: { before: number; after: number },
  lifetimeSeconds: number,
): void {
  const reported = Date.parse(expirationTimestamp ?? 'missing') / 1000;
  expect(reported).toBeGreaterThanOrEqual(Math.floor(window.before / 1000) + lifetimeSeconds - 60);
  // Not slowness-bound: `after` is read once the call returned, after the plugin read its clock.
  expect(reported).toBeLessThanOrEqual(Math.floor(window.after / 1000) + lifetimeSeconds - 60);
  expect(expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
}

/** A PEM text and each long line of its body: a message cut across lines must show none of them. */
export function pemSecrets(...pems: string[]): string[] {
  return pems.flatMap((pem) => [pem, ...pem.split('\n').filter((line) => line.length > 40)]);
}

/** The contract of a failure: the exit code, no stdout, exactly `message` on stderr, no secret anywhere. */
export function expectFailure(result: CliResult, code: number, message: string, secrets: string[]): void {
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
    code,
    stdout: '',
    stderr: `${PREFIX}${message}\n`,
  });
  expect(leaks(result, secrets)).toEqual([]);
}

/** A successful run: exit 0, nothing on stderr, and the secrets nowhere (the credential only on stdout). */
export function expectQuietSuccess(result: CliResult, secrets: string[]): void {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(leaks(result, secrets)).toEqual([]);
}

/** The ExecCredential line. */
export function execCredential(apiVersion: string, status: Record<string, string>): string {
  return JSON.stringify({ apiVersion, kind: 'ExecCredential', status }) + '\n';
}
