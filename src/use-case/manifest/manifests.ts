// The manifests `kubeconfig` and `argocd-secret` print, as plain objects. Pure: the caller has
// validated the config, read the CA file and knows how this binary is started.

const EXEC_EXTENSION = 'client.authentication.k8s.io/exec';
export const ARGOCD_COMMAND = '/custom-tools/webapi-credential';
/** The name the package and the release binary install as: what kubectl looks up on the PATH. */
export const INSTALLED_NAME = 'webapi-credential';
export const ARGOCD_NAMESPACE = 'argocd';
/**
 * argocd-secret --cache: the cache in a directory the plugin makes (0700, Argo CD's uid 999) on the
 * memory-backed emptyDir examples/argocd mounts here. kubelet mounts such a volume as a tmpfs whose
 * root is root's with mode 1777, sticky like /tmp: the cache's trust rules accept it as it is
 * (test/cache/emptydir.process.test.ts), and nothing is persisted to a volume.
 */
export const ARGOCD_CACHE_MOUNT = '/webapi-credential-cache';
export const ARGOCD_CACHE_DIR = `${ARGOCD_CACHE_MOUNT}/credentials`;

export interface ExecPlugin {
  /** The executable: a name looked up on the PATH, or an absolute path. */
  command: string;
  args: string[];
  apiVersion: string;
  /** The config document, handed to the plugin by client-go as spec.cluster.config. */
  embeddedConfig?: unknown;
  /** The config has a login: kubectl lets it prompt a person at a terminal (interactiveMode: IfAvailable). */
  login?: boolean;
}

export interface KubeconfigInput {
  name: string;
  server: string;
  /** base64 of the PEM CA bundle. */
  caData?: string;
  plugin: ExecPlugin;
}

/** A complete kubeconfig: one cluster, one user whose exec entry runs the plugin, one context. */
export function buildKubeconfig(input: KubeconfigInput): Record<string, unknown> {
  const { name, cluster, user, context } = kubeconfigEntries(input);
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context }],
    'current-context': name,
  };
}

/** The cluster, user and context of the kubeconfig, each under `name`: what --merge writes. */
export function kubeconfigEntries(input: KubeconfigInput): {
  name: string;
  cluster: Record<string, unknown>;
  user: Record<string, unknown>;
  context: Record<string, unknown>;
} {
  const { name, plugin } = input;
  const cluster: Record<string, unknown> = { server: input.server };
  if (input.caData !== undefined) cluster['certificate-authority-data'] = input.caData;
  if (plugin.embeddedConfig !== undefined)
    cluster['extensions'] = [{ name: EXEC_EXTENSION, extension: plugin.embeddedConfig }];
  const exec: Record<string, unknown> = {
    apiVersion: plugin.apiVersion,
    command: plugin.command,
    args: plugin.args,
    interactiveMode: plugin.login ? 'IfAvailable' : 'Never',
    installHint: kubeconfigInstallHint(plugin.command),
  };
  if (plugin.embeddedConfig !== undefined) exec['provideClusterInfo'] = true;
  return { name, cluster, user: { exec }, context: { cluster: name, user: name } };
}

/** What kubectl prints when it cannot start the command. */
function kubeconfigInstallHint(command: string): string {
  return command.includes('/') || command.includes('\\')
    ? `webapi-credential was not found at ${command}: install it there, or write this kubeconfig again with webapi-credential kubeconfig --command <path>`
    : `${command} was not found on the PATH: install a release binary as ${command} in a directory of the PATH, or npm i -g webapi-credential (Node >= 22)`;
}

export interface ArgoCdSecretInput {
  /** The cluster's name in Argo CD. */
  name: string;
  server: string;
  namespace: string;
  caData?: string;
  /** command is the path inside the Argo CD containers. */
  plugin: ExecPlugin;
  /** execProviderConfig.env; secrets belong here, never in args. */
  env: Record<string, string>;
}

/**
 * An Argo CD declarative cluster secret whose execProviderConfig runs the plugin. With
 * `plugin.embeddedConfig` the config travels in execProviderConfig.config (Argo CD >= 3.5).
 */
export function buildArgoCdClusterSecret(input: ArgoCdSecretInput): Record<string, unknown> {
  const { plugin } = input;
  const execProviderConfig: Record<string, unknown> = {
    command: plugin.command,
    args: plugin.args,
    env: input.env,
    apiVersion: plugin.apiVersion,
    installHint: `webapi-credential must be installed at ${plugin.command} in argocd-server and argocd-application-controller (see examples/argocd)`,
  };
  if (plugin.embeddedConfig !== undefined) {
    execProviderConfig['provideClusterInfo'] = true;
    execProviderConfig['config'] = plugin.embeddedConfig;
  }
  const config: Record<string, unknown> = { execProviderConfig };
  if (input.caData !== undefined) config['tlsClientConfig'] = { caData: input.caData };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `cluster-${resourceName(input.name)}`,
      namespace: input.namespace,
      labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
    },
    type: 'Opaque',
    stringData: { name: input.name, server: input.server, config: JSON.stringify(config, null, 2) + '\n' },
  };
}

/** A DNS-1123 name made of `text`: lower case, [a-z0-9-], at most 63 characters. */
export function resourceName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, 55)
    .replace(/^-+|-+$/g, '');
  return name === '' ? 'cluster' : name;
}

/** The default cluster name for a server URL: its host, as a resource name. */
export function defaultName(server: string): string {
  return resourceName(new URL(server).hostname);
}
