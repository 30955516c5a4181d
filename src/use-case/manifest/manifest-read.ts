// The reading side of manifests.ts: the exec entry that kubectl (a kubeconfig's context) or Argo CD
// (a cluster secret's execProviderConfig) would run, and the cluster it would run it for. doctor
// reads them; test/use-case/manifest/manifest-read.test.ts reads back what the generators wrote. Pure but for the
// parser: the caller reads the files.
import { dirname, isAbsolute, join } from 'node:path';
import { UsageError } from '../../errors.js';
import { parseConfigText } from '../../config/load.js';

const EXEC_EXTENSION = 'client.authentication.k8s.io/exec';

export interface ExecSource {
  /** Where the entry came from, for people: `kubeconfig F, context C (user U)`. */
  origin: string;
  kind: 'kubeconfig' | 'argocd-secret';
  command: string;
  args: string[];
  env: Record<string, string>;
  apiVersion: string | undefined;
  provideClusterInfo: boolean;
  interactiveMode?: string;
  /** The directory a relative command with a slash resolves against (client-go: the kubeconfig's). */
  baseDir?: string;
  cluster: {
    server?: string;
    /** PEM of the cluster's CA, from certificate-authority-data (base64) or certificate-authority (a file). */
    caPem?: string;
    /** certificate-authority, when the CA is a file the caller reads. */
    caFile?: string;
    insecure?: boolean;
    serverName?: string;
    /** The exec extension (kubeconfig) or execProviderConfig.config (Argo CD 3.5): spec.cluster.config. */
    config?: unknown;
  };
}

type Entries = Record<string, unknown>;

function record(value: unknown): Entries | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Entries) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function named(list: unknown, name: string, field: string): Entries | undefined {
  if (!Array.isArray(list)) return undefined;
  const item = list.map(record).find((entry) => entry?.['name'] === name);
  return record(item?.[field]);
}

function decodeBase64(value: string | undefined): string | undefined {
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

/** The exec entry of `context` (else current-context) of a kubeconfig at `path`. */
export async function readKubeconfigExec(content: string, path: string, context?: string): Promise<ExecSource> {
  const document = record(await parseConfigText(content, `kubeconfig ${path}`));
  const fail = (message: string) => new UsageError('SOURCE', `kubeconfig ${path}: ${message}`);
  if (!document) throw fail('not a kubeconfig (expected a mapping with contexts, users and clusters)');
  const contextName = context ?? text(document['current-context']);
  if (!contextName) throw fail('no current-context: pass --context');
  const contextEntry = named(document['contexts'], contextName, 'context');
  if (!contextEntry) throw fail(`no context ${JSON.stringify(contextName)}`);
  const userName = text(contextEntry['user']) ?? '';
  const clusterName = text(contextEntry['cluster']) ?? '';
  const user = named(document['users'], userName, 'user');
  if (!user) throw fail(`context ${contextName} names user ${JSON.stringify(userName)}, which is not in users`);
  const exec = record(user['exec']);
  if (!exec) throw fail(`user ${userName} has no exec entry: kubectl does not run a credential plugin for it`);
  const command = text(exec['command']);
  if (!command) throw fail(`user ${userName}: exec.command is missing`);
  const env: Record<string, string> = {};
  for (const item of Array.isArray(exec['env']) ? exec['env'] : []) {
    const name = text(record(item)?.['name']);
    if (name !== undefined) env[name] = text(record(item)?.['value']) ?? '';
  }
  const cluster = named(document['clusters'], clusterName, 'cluster') ?? {};
  const extension = Array.isArray(cluster['extensions'])
    ? cluster['extensions'].map(record).find((entry) => entry?.['name'] === EXEC_EXTENSION)
    : undefined;
  const caPath = text(cluster['certificate-authority']);
  const interactiveMode = text(exec['interactiveMode']);
  const server = text(cluster['server']);
  const caPem = decodeBase64(text(cluster['certificate-authority-data']));
  const serverName = text(cluster['tls-server-name']);
  return {
    origin: `kubeconfig ${path}, context ${contextName} (user ${userName})`,
    kind: 'kubeconfig',
    command,
    args: Array.isArray(exec['args']) ? exec['args'].map(String) : [],
    env,
    apiVersion: text(exec['apiVersion']),
    provideClusterInfo: exec['provideClusterInfo'] === true,
    ...(interactiveMode !== undefined ? { interactiveMode } : {}),
    baseDir: dirname(path),
    cluster: {
      ...(server !== undefined ? { server } : {}),
      ...(caPem !== undefined ? { caPem } : {}),
      // client-go: a relative certificate-authority means the kubeconfig's directory.
      ...(caPath !== undefined ? { caFile: isAbsolute(caPath) ? caPath : join(dirname(path), caPath) } : {}),
      ...(cluster['insecure-skip-tls-verify'] === true ? { insecure: true } : {}),
      ...(serverName !== undefined ? { serverName } : {}),
      ...(extension && 'extension' in extension ? { config: extension['extension'] } : {}),
    },
  };
}

/** The execProviderConfig of an Argo CD cluster secret (stringData, or data in base64). */
export async function readArgoCdSecret(content: string, path: string): Promise<ExecSource> {
  const fail = (message: string) => new UsageError('SOURCE', `Argo CD secret ${path}: ${message}`);
  const document = record(await parseConfigText(content, `Argo CD secret ${path}`));
  if (!document || document['kind'] !== 'Secret') throw fail('not a Secret');
  const stringData = record(document['stringData']) ?? {};
  const data = record(document['data']) ?? {};
  const field = (name: string) => text(stringData[name]) ?? decodeBase64(text(data[name]));
  const configText = field('config');
  if (configText === undefined) throw fail('no config (stringData.config or data.config)');
  const config = record(await parseConfigText(configText, `Argo CD secret ${path} config`)) ?? {};
  const exec = record(config['execProviderConfig']);
  if (!exec) throw fail('config has no execProviderConfig: Argo CD does not run a credential plugin for this cluster');
  const command = text(exec['command']);
  if (!command) throw fail('execProviderConfig.command is missing');
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(record(exec['env']) ?? {})) env[name] = String(value);
  const tls = record(config['tlsClientConfig']) ?? {};
  const server = field('server');
  const caPem = decodeBase64(text(tls['caData']));
  const serverName = text(tls['serverName']);
  return {
    origin: `Argo CD secret ${path} (cluster ${field('name') ?? '?'})`,
    kind: 'argocd-secret',
    command,
    args: Array.isArray(exec['args']) ? exec['args'].map(String) : [],
    env,
    apiVersion: text(exec['apiVersion']),
    provideClusterInfo: exec['provideClusterInfo'] === true,
    cluster: {
      ...(server !== undefined ? { server } : {}),
      ...(caPem !== undefined ? { caPem } : {}),
      ...(tls['insecure'] === true ? { insecure: true } : {}),
      ...(serverName !== undefined ? { serverName } : {}),
      ...('config' in exec ? { config: exec['config'] } : {}),
    },
  };
}

/** KUBERNETES_EXEC_INFO as client-go sends it for this entry: spec.cluster only with provideClusterInfo. */
export function execInfoFor(source: ExecSource, caPem: string | undefined, interactive = false): string {
  const { cluster } = source;
  // As kubectl at a terminal says it (doctor --login), else as in a pipeline or Argo CD.
  const spec: Entries = { interactive };
  if (source.provideClusterInfo) {
    spec['cluster'] = {
      ...(cluster.server !== undefined ? { server: cluster.server } : {}),
      ...(cluster.serverName !== undefined ? { 'tls-server-name': cluster.serverName } : {}),
      ...(cluster.insecure ? { 'insecure-skip-tls-verify': true } : {}),
      ...(caPem !== undefined ? { 'certificate-authority-data': Buffer.from(caPem, 'utf8').toString('base64') } : {}),
      ...(cluster.config !== undefined ? { config: cluster.config } : {}),
    };
  }
  return JSON.stringify({ apiVersion: source.apiVersion, kind: 'ExecCredential', spec });
}
