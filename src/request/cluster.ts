// doctor's cluster stage: who the Kubernetes API server thinks the credential is. Two requests of
// its own, on the TLS material code of the token API's client (http.ts): GET /version without the
// credential, then a SelfSubjectReview (authentication.k8s.io/v1, then v1beta1) with it.
import https from 'node:https';
import { RequestError } from '../errors.js';
import type { CredentialStatus } from '../credential/exec-credential.js';
import type { TlsMaterial } from './build.js';
import { makeSecureContext } from './tls-context.js';
import { watchExchange, type TlsPeer } from './observe-http.js';

export interface ClusterTarget {
  server: string;
  /** The cluster's CA (PEM), its TLS server name, insecure-skip-tls-verify. */
  tls: TlsMaterial;
}

export interface ClusterOutcome {
  /** gitVersion of /version, when it answered. */
  version?: string;
  tls?: TlsPeer;
  user?: { username: string; uid?: string; groups: string[] };
  /** authentication.k8s.io/v1 or v1beta1: the API that answered the review. */
  reviewApi?: string;
  notes: string[];
}

interface Answer {
  status: number;
  body: string;
}

const MAX_BYTES = 1024 * 1024;

/**
 * The whole exchange's deadline, and how what the kubeconfig gave (the server's URL) is put into a
 * message: each error here is the plugin's frame (CredentialError.framed), that URL redacted in full.
 */
export interface ClusterOptions {
  deadline: number;
  now: () => number;
  redact: (text: string) => string;
}
const REVIEW_APIS = ['authentication.k8s.io/v1', 'authentication.k8s.io/v1beta1'];

export async function whoAmI(
  target: ClusterTarget,
  credential: CredentialStatus,
  options: ClusterOptions,
): Promise<ClusterOutcome> {
  const base = target.server.replace(/\/+$/, '');
  const outcome: ClusterOutcome = { notes: [] };
  const version = await exchange(
    `${base}/version`,
    'GET',
    {},
    undefined,
    target.tls,
    options,
    (peer) => (outcome.tls = peer),
  );
  if (version.status === 200) {
    const gitVersion = (parse(version.body) as { gitVersion?: unknown } | undefined)?.gitVersion;
    if (typeof gitVersion === 'string') outcome.version = gitVersion.slice(0, 64);
  } else {
    outcome.notes.push(`/version answered ${version.status} without a credential (anonymous access is off)`);
  }
  // The credential: a bearer token, or the client certificate the plugin gave.
  const tls: TlsMaterial = {
    ...target.tls,
    ...(credential.clientCertificateData !== undefined ? { cert: credential.clientCertificateData } : {}),
    ...(credential.clientKeyData !== undefined ? { key: credential.clientKeyData } : {}),
  };
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (credential.token !== undefined) headers['authorization'] = `Bearer ${credential.token}`;
  for (const api of REVIEW_APIS) {
    const url = `${base}/apis/${api}/selfsubjectreviews`;
    const review = await exchange(
      url,
      'POST',
      headers,
      JSON.stringify({ apiVersion: api, kind: 'SelfSubjectReview' }),
      tls,
      options,
    );
    if (review.status === 404) continue;
    if (review.status === 401) {
      throw new RequestError(
        'CLUSTER_UNAUTHORIZED',
        `the cluster does not accept this credential (401 Unauthorized from ${options.redact(url)}): check that its audience, issuer and expiry are what the cluster's authenticator expects (--oidc-* flags, structured authentication, a token webhook)`,
        { framed: true },
      );
    }
    if (review.status === 403) {
      outcome.notes.push(`the cluster accepted the credential but does not let it create a SelfSubjectReview (403)`);
      return outcome;
    }
    if (review.status < 200 || review.status > 299)
      throw new RequestError('CLUSTER_STATUS', `the cluster answered ${review.status} to POST ${options.redact(url)}`, {
        framed: true,
      });
    const info =
      (parse(review.body) as { status?: { userInfo?: Record<string, unknown> } } | undefined)?.status?.userInfo ?? {};
    const groups = Array.isArray(info['groups'])
      ? info['groups'].filter((group): group is string => typeof group === 'string')
      : [];
    outcome.user = {
      username: typeof info['username'] === 'string' ? info['username'] : '',
      ...(typeof info['uid'] === 'string' && info['uid'] !== '' ? { uid: info['uid'] } : {}),
      groups,
    };
    outcome.reviewApi = api;
    return outcome;
  }
  outcome.notes.push(
    'the API server has no SelfSubjectReview (older than 1.28, or the API is disabled): who the credential is cannot be asked',
  );
  return outcome;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function exchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  tls: TlsMaterial,
  options: ClusterOptions,
  onPeer?: (peer: TlsPeer) => void,
): Promise<Answer> {
  const target = new URL(url);
  const agent = new https.Agent({
    keepAlive: false,
    secureContext: makeSecureContext(tls),
    rejectUnauthorized: !tls.insecureSkipVerify,
    ...(tls.serverName !== undefined ? { servername: tls.serverName } : {}),
  });
  const watcher = watchExchange(target, tls, {
    now: options.now,
    deadline: options.deadline,
    observe: (seen) => seen.tls && onPeer?.(seen.tls),
  });
  const exchanged = new Promise<Answer & { headers: Record<string, never> }>((resolve, reject) => {
    const timer = setTimeout(() => fail('DEADLINE'), Math.max(1, options.deadline - options.now()));
    const fail = (code: string) => {
      clearTimeout(timer);
      request.destroy();
      agent.destroy();
      reject(Object.assign(clusterError(target, code, options.redact), { code }));
    };
    const request = https.request(target, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) fail('TOO_LARGE');
        else chunks.push(chunk);
      });
      response.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'ECONNRESET'));
      response.on('end', () => {
        clearTimeout(timer);
        agent.destroy();
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: {} });
      });
    });
    watcher.attach(request);
    request.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'REQUEST'));
    request.end(body);
  });
  return watcher.follow(exchanged);
}

function clusterError(target: URL, code: string, redact: (text: string) => string): RequestError {
  const where = redact(`${target.origin}${target.pathname}`);
  const framed = { framed: true } as const;
  if (code === 'DEADLINE')
    return new RequestError(
      'CLUSTER_DEADLINE',
      `no answer from the cluster at ${where} within the deadline (--timeout)`,
      framed,
    );
  if (code === 'ECONNREFUSED')
    return new RequestError(
      'CLUSTER_CONNECT',
      `connection to the cluster at ${where} refused: check the server URL`,
      framed,
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new RequestError(
      'CLUSTER_DNS',
      `cannot resolve the cluster's host in ${where} (${code}): check the server URL`,
      framed,
    );
  if (code === 'TOO_LARGE')
    return new RequestError('CLUSTER_ANSWER', `the cluster at ${where} answered more than 1 MiB`, framed);
  if (/CERT|SIGNATURE|ISSUER|SELF_SIGNED|ALTNAME/.test(code)) {
    return new RequestError(
      'CLUSTER_TLS',
      `TLS handshake with the cluster at ${where} failed (${code}): check the cluster's CA (certificate-authority-data, caData, --ca-file) and server name`,
      framed,
    );
  }
  return new RequestError('CLUSTER_REQUEST', `request to the cluster at ${where} failed (${code})`, framed);
}
