// `webapi-credential cluster-auth`: what the cluster must trust for the credential a config gives
// (SPEC "The cluster side"). With --from-token the config runs as get-token would (a login config
// through its cached login, or a login when a person is at the terminal) and the token's iss, aud and
// claim names are read, never the token shown; else the issuer comes from discovery (--issuer, or
// the issuer whose document names the config's token endpoint) and the audience from the config.
// What it cannot know is exit 2, naming it. Loaded only for this command.
import { ResponseError, UNSHOWABLE, UsageError } from '../../errors.js';
import { audiences, jwtClaims } from '../../credential/jwt-claims.js';
import type { Deps, GetTokenFlags } from '../deps.js';
import { prepare, type Prepared } from '../prepare.js';
import { getToken } from '../get-token.js';
import { checkIssuer, openIdConfiguration, type DiscoveryOptions } from '../discovery.js';
import { askedOf } from './asked.js';
import { certificatesOnly } from '../certificates.js';
import { requestRoot, shownUrl, type RenderedRequest } from '../../request/build.js';
import { clusterAuthManifest, type ClusterTrust } from './manifest.js';
import { REDACTED } from '../../redact/redactor.js';

export interface ClusterAuthFlags {
  /** The config and how to run it: get-token's flags. */
  run: GetTokenFlags;
  fromToken: boolean;
  issuer?: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim?: string;
  /** Default: the username's prefix. */
  groupsPrefix?: string;
  /** true: the user the token names (with --from-token). */
  bindUser?: string | true;
  bindGroup?: string;
  role: string;
}

/** How many parents of the token endpoint's path are tried as the issuer: deeper paths are no issuer's. */
const MAX_ISSUER_CANDIDATES = 8;

// Every message and warning from here on is the plugin's frame (CredentialError.framed, warn's
// `framed`): the reporter does not search it for the values a secret decided, so that a word of it that
// a secret chose ("token", "issuer") does not read [REDACTED] for one secret and not for another. What
// a server gave (a token's claims and iss, a document) is redacted in full where it is put in; the
// flags, the config's field names and its URL as shown are the frame's; the values read are still
// hidden from the whole (Redactor.tryRedactFrame).
const framed = { framed: true } as const;

export async function clusterAuth(flags: ClusterAuthFlags, deps: Deps): Promise<void> {
  checkFlags(flags);
  const deadline = deps.now() + flags.run.timeoutMs;
  const prepared = await prepare(flags.run, deps);
  const { config, request } = prepared;
  const warn = (line: string) => deps.warn(line, true);
  if (!config.paths.token)
    throw new UsageError(
      'CLUSTER_AUTH_CERTIFICATE',
      "this config's credential is a client certificate: the cluster trusts it through its client CA (kube-apiserver --client-ca-file), not a jwt authenticator",
      framed,
    );
  // A CA a secret decided or gave would be printed: two certificates or one spell a comparison out.
  // Named by its field alone: the path of a caFile a secret chose is no more shown than its text.
  if (request.tls.caSecret)
    throw new UsageError(
      'CLUSTER_AUTH_SECRET',
      `${request.tls.caSecret}: a secret decided or gave the CA, and cluster-auth prints no secret: give the CA with --set (caData: "{{ vars.CA }}") or a tls.caFile`,
      framed,
    );
  // Certificates only: a key concatenated into the config's CA bundle goes into no manifest.
  const bundle = request.tls.ca !== undefined ? certificatesOnly(request.tls.ca) : undefined;
  // caFrom names a caFile's path, which no secret decided (caSecret above); the labels are the CA file's.
  if (bundle && bundle.dropped.length > 0)
    warn(
      `${request.tls.caFrom ?? 'tls.caData'} holds ${bundle.dropped.join(', ')} besides its certificates: only the certificates go into issuer.certificateAuthority`,
    );
  const ca = bundle?.pem || undefined;
  const discovery: DiscoveryOptions = {
    deadline,
    timeoutMs: flags.run.timeoutMs,
    ...(ca !== undefined ? { ca: { pem: ca, from: request.tls.caFrom ?? 'tls.caData' } } : {}),
  };
  const idToken = config.paths.token === '$.id_token';
  const asked = askedOf([request, ...prepared.logins.map((login) => login.request)]);
  // A value a secret reached or decided would be printed: the manifest is no place for it. Known from
  // the renderer's taint, not by redacting the text: the redactor does not look for the letter or the
  // boolean a comparison chose, and one run per threshold would binary-search the secret.
  const named = [...asked.audiences, ...(asked.clientId ? [{ parameter: 'client_id', ...asked.clientId }] : [])];
  for (const { parameter, secretFrom } of named) {
    if (secretFrom !== undefined)
      throw new UsageError(
        'CLUSTER_AUTH_SECRET',
        `${secretFrom}: a secret decided or gave the ${parameter} it asks for, and cluster-auth prints no value a secret decides: give it as text of the config or with --set`,
        framed,
      );
  }
  const username = { claim: flags.usernameClaim, prefix: flags.usernamePrefix };
  const groups =
    flags.groupsClaim !== undefined
      ? { claim: flags.groupsClaim, prefix: flags.groupsPrefix ?? flags.usernamePrefix }
      : undefined;
  /** The issuer and audiences, from a token or from the issuer's document and the config, and which. */
  let learned: Pick<ClusterTrust, 'issuer' | 'audiences' | 'from'>;
  let bindUser = flags.bindUser;
  if (flags.fromToken) {
    const claims = await tokenClaims(prepared, flags, deps);
    const names = claimNames(claims, deps);
    const iss = claims['iss'];
    if (typeof iss !== 'string' || iss === '')
      throw new ResponseError(
        'CLUSTER_AUTH_NO_ISS',
        `the token has no iss claim, and a kube-apiserver takes a JWT by its issuer; its claims are ${names}`,
        framed,
      );
    const aud = audiences(claims);
    if (aud.length === 0)
      throw new ResponseError(
        'CLUSTER_AUTH_NO_AUD',
        `the token has no aud claim, and a kube-apiserver needs one of its audiences; its claims are ${names}`,
        framed,
      );
    const name = claims[username.claim];
    if (typeof name !== 'string' || name === '') {
      throw new UsageError(
        'CLUSTER_AUTH_NO_CLAIM',
        `the token has no ${username.claim} claim of a string for the username (--username-claim); its claims are ${names}`,
        framed,
      );
    }
    if (groups && claims[groups.claim] === undefined)
      warn(
        `the token has no ${groups.claim} claim (--groups-claim): the cluster will see this user in no group of the issuer's`,
      );
    for (const [what, value] of [
      ['iss', iss],
      ['aud', aud.join(' ')],
      [username.claim, name],
    ] as const) {
      if (UNSHOWABLE.test(value))
        throw new ResponseError(
          'CLUSTER_AUTH_CLAIM_UNSHOWABLE',
          `the token's ${what} claim holds a control or format character; cluster-auth writes no such value into a manifest`,
          framed,
        );
    }
    if (bindUser === true) bindUser = name;
    learned = {
      issuer: iss,
      audiences: aud,
      from: 'a token this config gave (its iss, aud and claim names; the token is not shown)',
    };
    // A login may have taken a person minutes: the issuer's document gets a --timeout of its own.
    // The iss is what the token API gave: redacted in full where a message puts it in.
    const found = await openIdConfiguration(
      issuer(iss, deps),
      { ...discovery, deadline: deps.now() + flags.run.timeoutMs, showIssuer: (text) => deps.redactor.redact(text) },
      deps,
    );
    if ('problem' in found)
      warn(
        `the kube-apiserver reads the issuer's keys through ${found.problem.replace(/^(\S+): /, '$1, which failed here: ')}`,
      );
  } else {
    const iss =
      flags.issuer !== undefined
        ? await confirmIssuer(checkIssuer(flags.issuer, '--issuer'), discovery, deps)
        : await findIssuer(request, discovery, deps);
    const aud = idToken
      ? asked.clientId !== undefined
        ? [asked.clientId.value]
        : []
      : asked.audiences.map((a) => a.value);
    if (aud.length === 0) {
      throw new UsageError(
        'CLUSTER_AUTH_NO_AUDIENCE',
        idToken
          ? "cannot know the id_token's aud (the client id): the config names no client_id in its form or query; run cluster-auth --from-token to read it from a real token"
          : "cannot know the access token's aud: the config asks for no audience or resource (--set audience= or --set resource=), and without one the issuer decides it; run cluster-auth --from-token to read it from a real token",
        framed,
      );
    }
    learned = { issuer: iss, audiences: aud, from: `${iss}/.well-known/openid-configuration and the config` };
  }
  const trust: Omit<ClusterTrust, 'ca' | 'bind'> = {
    ...learned,
    username,
    ...(groups ? { groups } : {}),
    role: flags.role,
    credential: credentialWords(idToken, learned.audiences),
  };
  // The issuer's CA is the config's only when the config reaches the issuer's host through it. The host
  // as the URL is shown: a letter a secret chose there is [REDACTED] (build.ts shownUrl), and such a
  // host is not taken for the issuer's, or whether the CA went in would tell which host it chose.
  const host = shownHost(request);
  const sameHost =
    !host.includes(REDACTED) && URL.canParse(request.url) && new URL(request.url).host === new URL(trust.issuer).host;
  if (ca !== undefined && !sameHost)
    warn(
      host.includes(REDACTED)
        ? `the config's CA (${request.tls.caFrom ?? 'tls.caData'}) is for a host a secret chose (${host}), which cluster-auth does not take for the issuer's: issuer.certificateAuthority left out (the apiserver then trusts its system roots)`
        : `the config's CA (${request.tls.caFrom ?? 'tls.caData'}) is for ${host}, not the issuer's host: issuer.certificateAuthority left out (the apiserver then trusts its system roots)`,
    );
  const bind: ClusterTrust['bind'] =
    typeof bindUser === 'string'
      ? { kind: 'User', name: bindUser }
      : flags.bindGroup !== undefined
        ? { kind: 'Group', name: flags.bindGroup }
        : undefined;
  deps.stdout(
    clusterAuthManifest({ ...trust, ...(ca !== undefined && sameHost ? { ca } : {}), ...(bind ? { bind } : {}) }),
  );
}

function checkFlags(flags: ClusterAuthFlags): void {
  if (flags.bindUser !== undefined && flags.bindGroup !== undefined)
    throw new UsageError('FLAG_CONFLICT', 'cluster-auth binds --bind-user or --bind-group, not both');
  if (flags.bindGroup !== undefined && flags.groupsClaim === undefined)
    throw new UsageError(
      'FLAG_CONFLICT',
      "--bind-group needs --groups-claim: without it the cluster sees no group of the issuer's",
    );
  if (flags.bindUser === true && !flags.fromToken)
    throw new UsageError(
      'FLAG_CONFLICT',
      '--bind-user without a name binds the user the token names: add --from-token, or give the name (--bind-user alice)',
    );
  if (flags.groupsPrefix !== undefined && flags.groupsClaim === undefined)
    throw new UsageError('FLAG_CONFLICT', '--groups-prefix needs --groups-claim');
  const values: Array<[string, string | undefined]> = [
    ['--username-claim', flags.usernameClaim],
    ['--username-prefix', flags.usernamePrefix],
    ['--groups-claim', flags.groupsClaim],
    ['--groups-prefix', flags.groupsPrefix],
    ['--bind-user', typeof flags.bindUser === 'string' ? flags.bindUser : undefined],
    ['--bind-group', flags.bindGroup],
    ['--role', flags.role],
  ];
  for (const [name, value] of values) {
    if (value === undefined) continue;
    if (UNSHOWABLE.test(value))
      throw new UsageError('FLAG_INVALID', `${name}: a control or format character has no place in a manifest`);
    if (value === '' && name !== '--username-prefix' && name !== '--groups-prefix')
      throw new UsageError('FLAG_INVALID', `${name} needs a value`);
  }
}

/** The credential as get-token gives it; a login config's from the cache its login filled (login caches by default). */
async function tokenClaims(prepared: Prepared, flags: ClusterAuthFlags, deps: Deps): Promise<Record<string, unknown>> {
  let printed = '';
  const cache = flags.run.cache ?? (prepared.config.login ? true : undefined);
  await getToken(
    { ...flags.run, output: 'token', ...(cache !== undefined ? { cache } : {}) },
    { ...deps, stdout: (text) => void (printed += text) },
  );
  const token = printed.trim();
  deps.redactor.add(token);
  const claims = jwtClaims(token);
  if (!claims) {
    throw new UsageError(
      'CLUSTER_AUTH_OPAQUE',
      `the credential is no JWT (an opaque token of ${token.length} characters): a kube-apiserver's jwt authenticator takes JWTs only; ask the issuer for one (an access token for an audience or resource, or the id_token of a login), or use a token webhook`,
      framed,
    );
  }
  return claims;
}

/** The names of a token's claims, as doctor shows them: names only, plain ones, each redacted in full (it may echo what was sent). */
function claimNames(claims: Record<string, unknown>, deps: Deps): string {
  const names = Object.keys(claims)
    .filter((name) => /^[A-Za-z_][\w.:-]{0,39}$/.test(name))
    .slice(0, 30);
  return names.length > 0 ? names.map((name) => deps.redactor.redact(name)).join(', ') : '(none)';
}

/** The host of the request's URL as shown (userinfo dropped): a value a secret decided is [REDACTED] there. */
function shownHost(request: RenderedRequest): string {
  return /^[^:/]+:\/\/(?:[^@/?#]*@)?([^/?#]*)/.exec(shownUrl(request))?.[1] ?? '';
}

function credentialWords(idToken: boolean, aud: string[]): string {
  return idToken
    ? `a person's id_token, whose aud is the client id (${aud.join(', ')})`
    : `an access token, whose aud is the audience or resource it was asked for (${aud.join(', ')})`;
}

/** A token's iss as a URL discovery can take; the apiserver's own rule (https, no query, fragment or user) refuses the rest. */
function issuer(iss: string, deps: Deps): string {
  try {
    return checkIssuer(iss, "the token's iss", (text) => deps.redactor.redact(text));
  } catch (error) {
    throw new ResponseError(
      'CLUSTER_AUTH_ISS',
      `${(error as Error).message}: a kube-apiserver takes only an https:// issuer without query, fragment or user info`,
      framed,
    );
  }
}

async function confirmIssuer(iss: string, discovery: DiscoveryOptions, deps: Deps): Promise<string> {
  const found = await openIdConfiguration(iss, discovery, deps);
  if ('problem' in found)
    throw new UsageError(
      'CLUSTER_AUTH_NO_DISCOVERY',
      `the kube-apiserver reads the issuer's keys through ${found.problem.replace(/^(\S+): /, '$1, which failed: ')}; fix --issuer, or run cluster-auth --from-token`,
      framed,
    );
  return found.metadata.issuer;
}

/** The issuer whose OpenID Connect document names this token endpoint: the endpoint's parents, nearest first. */
async function findIssuer(request: RenderedRequest, discovery: DiscoveryOptions, deps: Deps): Promise<string> {
  // The issuer found is printed, and the URLs tried are named: a value a secret decided or gave in the
  // URL before its query ([REDACTED] in the URL as shown; a letter the redactor cannot find) would be.
  const path = (url: string) => url.split(/[?#]/)[0];
  if (path(shownUrl(request)) !== path(request.url))
    throw new UsageError(
      'CLUSTER_AUTH_SECRET',
      `${requestRoot()}.url: a secret decided or gave the token endpoint's URL, and cluster-auth would print the issuer found from it: give it with --issuer URL, or run cluster-auth --from-token`,
      framed,
    );
  const url = new URL(request.url);
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const candidates: string[] = [];
  for (let n = segments.length - 1; n >= 0 && candidates.length < MAX_ISSUER_CANDIDATES; n--)
    candidates.push(`${url.origin}${n > 0 ? `/${segments.slice(0, n).join('/')}` : ''}`);
  const tried: string[] = [];
  for (const candidate of candidates) {
    if (deps.now() >= discovery.deadline) break;
    const found = await openIdConfiguration(candidate, discovery, deps);
    if ('metadata' in found && found.metadata.token_endpoint === `${url.origin}${url.pathname}`)
      return found.metadata.issuer;
    tried.push(candidate);
  }
  throw new UsageError(
    'CLUSTER_AUTH_NO_ISSUER',
    `cannot know the issuer: no OpenID Connect document at ${tried.map((c) => `${c}/.well-known/openid-configuration`).join(', ') || '(none tried: --timeout passed)'} names the token endpoint ${url.origin}${url.pathname}; give it with --issuer URL, or run cluster-auth --from-token`,
    framed,
  );
}
