// Runs a kubeconfig exec entry or an Argo CD execProviderConfig the way client-go does: the caller's
// environment plus the entry's env (the entry wins), KUBERNETES_EXEC_INFO with the entry's
// apiVersion and, with provideClusterInfo, spec.cluster; then it checks stdout as client-go does.
// The entry's command must be the plugin's path in the pod or on the PATH (`plugin`); it runs our CLI.
import { runCli, type CliResult } from './cli.js';

export interface ExecEntry {
  command: string;
  args?: string[];
  /** A kubeconfig's list of {name, value}, or Argo CD's map. */
  env?: Array<{ name: string; value: string }> | Record<string, string> | null;
  apiVersion: string;
  provideClusterInfo?: boolean;
  /** Argo CD >= 3.5: the cluster extension's content. */
  config?: unknown;
}

/** spec.cluster as client-go fills it from the kubeconfig cluster (kebab-case keys). */
interface ClusterInfo {
  server: string;
  'certificate-authority-data'?: string;
  config?: unknown;
}

export interface RunExecOptions {
  /** Where the entry's command points: the plugin. */
  plugin: string;
  /** Files of the pod (or of the user's machine) the entry names, to files of the test. */
  paths?: Record<string, string>;
  cluster?: ClusterInfo;
  /** The environment of kubectl / the Argo CD container. */
  callerEnv?: Record<string, string>;
}

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

export async function runExecEntry(entry: ExecEntry, options: RunExecOptions): Promise<CliResult> {
  if (entry.command !== options.plugin)
    throw new Error(`the exec entry runs ${entry.command}, not the plugin at ${options.plugin}`);
  const paths = options.paths ?? {};
  const mapped = (value: string) => {
    for (const [from, to] of Object.entries(paths)) {
      if (value === from) return to;
      if (value.endsWith(`=${from}`)) return value.slice(0, -from.length) + to;
    }
    return value;
  };
  const entryEnv = Array.isArray(entry.env)
    ? Object.fromEntries(entry.env.map((e) => [e.name, e.value]))
    : (entry.env ?? {});
  const spec: Record<string, unknown> = { interactive: false };
  if (entry.provideClusterInfo) {
    if (!options.cluster) throw new Error('provideClusterInfo needs the cluster');
    spec['cluster'] = entry.config === undefined ? options.cluster : { ...options.cluster, config: entry.config };
  }
  const env = {
    ...options.callerEnv,
    ...Object.fromEntries(Object.entries(entryEnv).map(([name, value]) => [name, mapped(value)])),
    KUBERNETES_EXEC_INFO: JSON.stringify({ kind: 'ExecCredential', apiVersion: entry.apiVersion, spec }),
  };
  return runCli((entry.args ?? []).map(mapped), { env });
}

/** client-go's checks of the plugin's answer; the status, or client-go's error. */
export function clientGoStatus(result: CliResult, apiVersion: string): ExecCredentialStatus {
  if (result.code !== 0) throw new Error(`exec: executable failed with exit code ${result.code}: ${result.stderr}`);
  const answer = JSON.parse(result.stdout) as { apiVersion?: string; kind?: string; status?: ExecCredentialStatus };
  if (answer.kind !== 'ExecCredential') throw new Error(`decoding stdout: kind ${answer.kind}`);
  if (answer.apiVersion !== apiVersion)
    throw new Error(
      `exec plugin is configured to use API version ${apiVersion}, plugin returned version ${answer.apiVersion}`,
    );
  const status = answer.status;
  if (!status) throw new Error("exec plugin didn't return a status field");
  if (!status.token && (!status.clientCertificateData || !status.clientKeyData)) {
    if (status.clientCertificateData || status.clientKeyData)
      throw new Error('exec plugin returned only certificate or key, not both');
    throw new Error("exec plugin didn't return a token or cert/key pair");
  }
  return status;
}
