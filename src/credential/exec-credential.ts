// The client-go exec protocol: KUBERNETES_EXEC_INFO in, ExecCredential out. Pure.
import { UsageError } from '../errors.js';

export const V1 = 'client.authentication.k8s.io/v1';
export const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const SUPPORTED = [V1, V1BETA1];

export interface ExecInfo {
  /** undefined when KUBERNETES_EXEC_INFO is not set (a person in a shell, or an old client). */
  apiVersion: string | undefined;
  /** spec.cluster, present when the kubeconfig sets provideClusterInfo: true. */
  cluster: Record<string, unknown> | undefined;
  /** spec.interactive: client-go's word that a person can answer a prompt; absent when not true. */
  interactive?: boolean;
}

export interface CredentialStatus {
  token?: string;
  expirationTimestamp?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
}

export function readExecInfo(raw: string | undefined): ExecInfo {
  if (raw === undefined || raw.trim() === '') return { apiVersion: undefined, cluster: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UsageError(
      'EXEC_INFO_INVALID',
      'KUBERNETES_EXEC_INFO is not valid JSON; it is set by client-go, unset it to run by hand',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('EXEC_INFO_INVALID', 'KUBERNETES_EXEC_INFO is not a JSON object');
  }
  const info = parsed as { apiVersion?: unknown; kind?: unknown; spec?: { cluster?: unknown; interactive?: unknown } };
  if (info.kind !== undefined && info.kind !== 'ExecCredential') {
    throw new UsageError(
      'EXEC_INFO_INVALID',
      `KUBERNETES_EXEC_INFO has kind ${JSON.stringify(info.kind)}, expected "ExecCredential"`,
    );
  }
  if (typeof info.apiVersion !== 'string' || !SUPPORTED.includes(info.apiVersion)) {
    throw new UsageError(
      'API_VERSION',
      `KUBERNETES_EXEC_INFO has apiVersion ${JSON.stringify(info.apiVersion ?? null)}; supported: ${SUPPORTED.join(', ')}`,
    );
  }
  const cluster = info.spec?.cluster;
  return {
    apiVersion: info.apiVersion,
    cluster:
      typeof cluster === 'object' && cluster !== null && !Array.isArray(cluster)
        ? (cluster as Record<string, unknown>)
        : undefined,
    ...(info.spec?.interactive === true ? { interactive: true } : {}),
  };
}

/** client-go rejects an answer in another version than it asked for, so the exec info wins. */
export function resolveApiVersion(info: ExecInfo, flag: string | undefined): string {
  if (flag !== undefined && !SUPPORTED.includes(flag)) {
    throw new UsageError(
      'API_VERSION',
      `--api-version ${JSON.stringify(flag)} is not supported; use ${SUPPORTED.join(' or ')}`,
    );
  }
  if (info.apiVersion !== undefined && flag !== undefined && flag !== info.apiVersion) {
    throw new UsageError(
      'API_VERSION',
      `--api-version ${flag} conflicts with ${info.apiVersion} asked for by KUBERNETES_EXEC_INFO`,
    );
  }
  return info.apiVersion ?? flag ?? V1BETA1;
}

export function formatExecCredential(apiVersion: string, status: CredentialStatus): string {
  const ordered: CredentialStatus = {};
  if (status.token !== undefined) ordered.token = status.token;
  if (status.clientCertificateData !== undefined) ordered.clientCertificateData = status.clientCertificateData;
  if (status.clientKeyData !== undefined) ordered.clientKeyData = status.clientKeyData;
  if (status.expirationTimestamp !== undefined) ordered.expirationTimestamp = status.expirationTimestamp;
  return JSON.stringify({ apiVersion, kind: 'ExecCredential', status: ordered }) + '\n';
}
