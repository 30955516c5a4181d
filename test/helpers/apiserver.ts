// A minimal kube-apiserver stand-in over HTTPS (test CA, localhost certificate) for e2e tests that
// run the real kubectl. It authenticates like the real one, with two of its authenticators:
//   - `Authorization: Bearer <token>` where `accepts(token)` names a user (the token webhook's job),
//   - a client certificate that verifies against the given client CA (user = CN, groups = O).
// Everything else, and any request without credentials, gets the apiserver's 401 Status.
// It records every request (method, path, how it was authenticated) and answers just what the
// e2e tests ask kubectl for: a PodList in `default`, SelfSubjectReview (`kubectl auth whoami`, and
// doctor: authentication.k8s.io/v1 and v1beta1, or neither as before 1.28), /version to anyone, and
// `kubectl get ns` (the core group's discovery and a NamespaceList).
import { createServer, type ServerOptions } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { makePki } from './pki.js';
import { authenticationConfigProblems, type AuthenticationConfiguration } from './authentication-config.js';
import { jwtAuthenticators, type JwtOutcome } from './jwt-authenticator.js';

export interface UserInfo {
  username: string;
  groups: string[];
  uid?: string;
}

interface ApiRequest {
  method: string;
  path: string;
  /** How the request authenticated: 'bearer', 'certificate', or 'none' (answered 401). */
  auth: 'bearer' | 'certificate' | 'none';
  /** The bearer token that was presented, accepted or not. */
  token?: string;
  /** Why a jwt authenticator of `authentication` refused the token, in the apiserver's words. */
  refused?: string;
  /** CN of a client certificate that verified against the client CA. */
  certCN?: string;
  /** The authenticated user, when there is one. */
  user?: UserInfo;
  status: number;
  userAgent?: string;
  body: string;
}

export interface ApiServerOptions {
  /** Bearer tokens the server accepts: a set (user "token-user"), or a callback naming the user. */
  accepts?: ReadonlySet<string> | ((token: string) => UserInfo | string | undefined);
  /** PEM of the CA whose client certificates are accepted; none accepted when absent. */
  clientCa?: string;
  /** Pod names in namespace default; two by default. */
  pods?: string[];
  /** The SelfSubjectReview APIs served: both by default (1.28+); [] answers 404 as older servers do. */
  selfSubjectReview?: Array<'v1' | 'v1beta1'>;
  /**
   * Structured authentication (--authentication-config): its jwt authenticators take a bearer token
   * whose iss is theirs, before `accepts`; checked at start against the transcribed rules.
   */
  authentication?: AuthenticationConfiguration;
}

export interface ApiServer {
  url: string;
  /** PEM of the CA that signed the server certificate, for the kubeconfig. */
  caFile: string;
  requests: ApiRequest[];
  close: () => Promise<void>;
}

const UNAUTHORIZED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  response.end(JSON.stringify(body));
}

function notFound(path: string): unknown {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `the server could not find the requested resource (${path})`,
    reason: 'NotFound',
    details: {},
    code: 404,
  };
}

function podList(names: string[]): unknown {
  return {
    kind: 'PodList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '1' },
    items: names.map((name, i) => ({
      metadata: {
        name,
        namespace: 'default',
        uid: `00000000-0000-0000-0000-00000000000${i}`,
        resourceVersion: '1',
        creationTimestamp: '2026-01-01T00:00:00Z',
      },
      spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] },
      status: { phase: 'Running' },
    })),
  };
}

const CORE_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'v1',
  resources: [
    {
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['get', 'list'],
      shortNames: ['ns'],
    },
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
  ],
};

function namespaceList(names: string[]): unknown {
  return {
    kind: 'NamespaceList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '1' },
    items: names.map((name, i) => ({
      metadata: {
        name,
        uid: `00000000-0000-0000-0001-00000000000${i}`,
        resourceVersion: '1',
        creationTimestamp: '2026-01-01T00:00:00Z',
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    })),
  };
}

async function authenticate(
  req: IncomingMessage,
  options: ApiServerOptions,
  jwt?: (token: string) => Promise<JwtOutcome>,
): Promise<Pick<ApiRequest, 'auth' | 'token' | 'certCN' | 'user' | 'refused'>> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    // The real apiserver tries the bearer token first and fails the request when it is rejected.
    const match = /^Bearer (\S+)$/i.exec(header);
    if (!match) return { auth: 'none' };
    const token = match[1]!;
    const outcome = await jwt?.(token);
    if (outcome)
      return 'user' in outcome
        ? { auth: 'bearer', token, user: outcome.user }
        : { auth: 'none', token, refused: outcome.refused };
    const accepts = options.accepts;
    let found: UserInfo | string | undefined;
    if (typeof accepts === 'function') found = accepts(token);
    else if (accepts?.has(token)) found = 'token-user';
    if (found === undefined) return { auth: 'none', token };
    const user = typeof found === 'string' ? { username: found, groups: ['system:authenticated'] } : found;
    return { auth: 'bearer', token, user };
  }
  const socket = req.socket as TLSSocket;
  if (options.clientCa !== undefined && socket.authorized) {
    const subject = socket.getPeerCertificate().subject as { CN?: string; O?: string | string[] } | undefined;
    const cn = subject?.CN;
    if (cn) {
      const o = subject?.O;
      const groups = [...(o === undefined ? [] : Array.isArray(o) ? o : [o]), 'system:authenticated'];
      return { auth: 'certificate', certCN: cn, user: { username: cn, groups } };
    }
  }
  return { auth: 'none' };
}

export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const pki = makePki();
  const requests: ApiRequest[] = [];
  // The real apiserver does not start with an invalid configuration.
  const problems = options.authentication ? authenticationConfigProblems(options.authentication) : [];
  if (problems.length > 0) throw new Error(`--authentication-config is invalid:\n${problems.join('\n')}`);
  const jwt = options.authentication ? jwtAuthenticators(options.authentication) : undefined;
  const pods = options.pods ?? ['web-0', 'web-1'];
  const tls: ServerOptions = {
    cert: pki.server.cert,
    key: pki.server.key,
    // Like the apiserver: ask for a client certificate, never require one, decide per request.
    ...(options.clientCa !== undefined ? { requestCert: true, rejectUnauthorized: false, ca: options.clientCa } : {}),
  };
  const server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = new URL(req.url ?? '/', 'https://localhost').pathname;
      const body = Buffer.concat(chunks).toString('utf8');
      // system:public-info-viewer: /version needs no credential.
      if (req.method === 'GET' && path === '/version') {
        requests.push({ method: 'GET', path, auth: 'none', status: 200, body });
        return send(res, 200, { major: '1', minor: '33', gitVersion: 'v1.33.0-standin', platform: 'linux/amd64' });
      }
      const who = await authenticate(req, options, jwt);
      const record: ApiRequest = {
        method: req.method ?? '',
        path,
        ...who,
        status: 0,
        body,
        ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
      };
      requests.push(record);
      const answer = (status: number, payload: unknown) => {
        record.status = status;
        send(res, status, payload);
      };
      if (!who.user) return answer(401, UNAUTHORIZED);
      if (req.method === 'GET' && path === '/api/v1/namespaces/default/pods') return answer(200, podList(pods));
      // Enough discovery for `kubectl get ns`: the core group with namespaces and pods, no other group.
      if (req.method === 'GET' && path === '/api')
        return answer(200, {
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: req.headers.host ?? '' }],
        });
      if (req.method === 'GET' && path === '/apis')
        return answer(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
      if (req.method === 'GET' && path === '/api/v1') return answer(200, CORE_RESOURCES);
      if (req.method === 'GET' && path === '/api/v1/namespaces')
        return answer(200, namespaceList(['default', 'kube-system']));
      const review = /^\/apis\/authentication\.k8s\.io\/(v1|v1beta1)\/selfsubjectreviews$/.exec(path)?.[1] as
        'v1' | 'v1beta1' | undefined;
      if (req.method === 'POST' && review && (options.selfSubjectReview ?? ['v1', 'v1beta1']).includes(review)) {
        const { username, groups, uid } = who.user;
        return answer(201, {
          kind: 'SelfSubjectReview',
          apiVersion: `authentication.k8s.io/${review}`,
          metadata: { creationTimestamp: null },
          status: { userInfo: { username, ...(uid !== undefined ? { uid } : {}), groups } },
        });
      }
      return answer(404, notFound(path));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile: pki.ca.certFile,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
