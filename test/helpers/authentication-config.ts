// The kube-apiserver's structured authentication configuration, AuthenticationConfiguration of
// apiserver.config.k8s.io/v1 (v1beta1 has the same fields), as the Go types of kubernetes/apiserver
// pkg/apis/apiserver/v1/types.go define it (read at 24a394e, July 2026): the JSON field names and
// their kinds; and the rules of pkg/apis/apiserver/validation/validation.go
// (ValidateAuthenticationConfiguration) that do not need a CEL compiler, in its words. Unknown
// fields fail, as the apiserver's strict decoding of the file does. The stand-in apiserver
// (apiserver.ts) refuses to start with a configuration that has problems, as the real one does.
import { X509Certificate } from 'node:crypto';
import YAML from 'yaml';

type Shape =
  | 'string'
  | 'boolean'
  | { list: Shape | Record<string, Shape> }
  | { object: Record<string, Shape> }
  | { oneOf: string[] };

const PREFIXED_CLAIM_OR_EXPRESSION: Record<string, Shape> = { claim: 'string', prefix: 'string', expression: 'string' };
const ISSUER: Record<string, Shape> = {
  url: 'string',
  discoveryURL: 'string',
  certificateAuthority: 'string',
  audiences: { list: 'string' },
  audienceMatchPolicy: { oneOf: ['', 'MatchAny'] },
  egressSelectorType: 'string',
};
const JWT_AUTHENTICATOR: Record<string, Shape> = {
  issuer: { object: ISSUER },
  claimValidationRules: { list: { claim: 'string', requiredValue: 'string', expression: 'string', message: 'string' } },
  claimMappings: {
    object: {
      username: { object: PREFIXED_CLAIM_OR_EXPRESSION },
      groups: { object: PREFIXED_CLAIM_OR_EXPRESSION },
      uid: { object: { claim: 'string', expression: 'string' } },
      extra: { list: { key: 'string', valueExpression: 'string' } },
    },
  },
  userValidationRules: { list: { expression: 'string', message: 'string' } },
};
const AUTHENTICATION_CONFIGURATION: Record<string, Shape> = {
  apiVersion: { oneOf: ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1'] },
  kind: { oneOf: ['AuthenticationConfiguration'] },
  jwt: { list: JWT_AUTHENTICATOR },
  anonymous: { object: { enabled: 'boolean', conditions: { list: { path: 'string' } } } },
};

export interface PrefixedClaim {
  claim?: string;
  prefix?: string;
  expression?: string;
}

export interface JwtAuthenticator {
  issuer: {
    url: string;
    discoveryURL?: string;
    certificateAuthority?: string;
    audiences: string[];
    audienceMatchPolicy?: string;
    egressSelectorType?: string;
  };
  claimValidationRules?: Array<{ claim?: string; requiredValue?: string; expression?: string; message?: string }>;
  claimMappings: {
    username: PrefixedClaim;
    groups?: PrefixedClaim;
    uid?: { claim?: string; expression?: string };
    extra?: Array<{ key: string; valueExpression: string }>;
  };
  userValidationRules?: Array<{ expression: string; message?: string }>;
}

export interface AuthenticationConfiguration {
  apiVersion: string;
  kind: 'AuthenticationConfiguration';
  jwt: JwtAuthenticator[];
  anonymous?: { enabled: boolean; conditions?: Array<{ path: string }> };
}

function check(value: unknown, shape: Shape, path: string): string[] {
  if (shape === 'string' || shape === 'boolean') return typeof value === shape ? [] : [`${path}: not a ${shape}`];
  if ('oneOf' in shape)
    return shape.oneOf.includes(value as string)
      ? []
      : [`${path}: not one of ${shape.oneOf.map((v) => JSON.stringify(v)).join(', ')}`];
  if ('list' in shape) {
    if (!Array.isArray(value)) return [`${path}: not a list`];
    const item = shape.list;
    return value.flatMap((entry, i) =>
      check(
        entry,
        typeof item === 'string' || 'list' in item || 'object' in item || 'oneOf' in item
          ? (item as Shape)
          : { object: item as Record<string, Shape> },
        `${path}[${i}]`,
      ),
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: not an object`];
  return Object.entries(value).flatMap(([key, entry]) =>
    shape.object[key] ? check(entry, shape.object[key]!, `${path}.${key}`) : [`${path}.${key}: unknown field`],
  );
}

/** validateURL: https, no user, query or fragment. */
function urlProblems(value: string, path: string): string[] {
  if (!URL.canParse(value)) return [`${path}: Invalid value: not a URL`];
  const url = new URL(value);
  const problems: string[] = [];
  if (url.protocol !== 'https:') problems.push(`${path}: Invalid value: URL scheme must be https`);
  if (url.username !== '' || url.password !== '')
    problems.push(`${path}: Invalid value: URL must not contain a username or password`);
  if (url.search !== '') problems.push(`${path}: Invalid value: URL must not contain a query`);
  if (url.hash !== '') problems.push(`${path}: Invalid value: URL must not contain a fragment`);
  return problems;
}

/** validatePrefixClaimOrExpression: claim xor expression; a claim needs its prefix said ("" included). */
function mappingProblems(mapping: PrefixedClaim | undefined, path: string, required: boolean): string[] {
  const { claim = '', expression = '' } = mapping ?? {};
  if (claim !== '' && expression !== '') return [`${path}: Invalid value: claim and expression can't both be set`];
  if (claim === '' && expression === '')
    return required ? [`${path}: Required value: claim or expression is required`] : [];
  if (expression !== '')
    return mapping?.prefix !== undefined
      ? [`${path}.prefix: Invalid value: may not be specified when expression is set`]
      : [];
  return mapping?.prefix === undefined
    ? [
        `${path}.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`,
      ]
    : [];
}

/** Every problem of a configuration document: its shape, then ValidateAuthenticationConfiguration's rules. */
export function authenticationConfigProblems(document: unknown): string[] {
  const shape = check(document, { object: AUTHENTICATION_CONFIGURATION }, '$');
  if (shape.length > 0) return shape;
  const config = document as AuthenticationConfiguration;
  const problems = (['apiVersion', 'kind'] as const)
    .filter((key) => !(key in config))
    .map((key) => `$.${key}: missing`);
  const jwt = config.jwt ?? [];
  if (jwt.length > 64) return [...problems, `jwt: Too many: ${jwt.length}: must have at most 64 items`];
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  jwt.forEach((authenticator, i) => {
    const at = `jwt[${i}]`;
    const issuer = authenticator.issuer ?? { url: '', audiences: [] };
    if (!issuer.url) problems.push(`${at}.issuer.url: Required value`);
    else problems.push(...urlProblems(issuer.url, `${at}.issuer.url`));
    if (issuer.discoveryURL) {
      if (issuer.url && issuer.url.replace(/\/+$/, '') === issuer.discoveryURL.replace(/\/+$/, ''))
        problems.push(`${at}.issuer.discoveryURL: Invalid value: discoveryURL must be different from URL`);
      problems.push(...urlProblems(issuer.discoveryURL, `${at}.issuer.discoveryURL`));
      if (seenDiscovery.has(issuer.discoveryURL)) problems.push(`${at}.issuer.discoveryURL: Duplicate value`);
      seenDiscovery.add(issuer.discoveryURL);
    }
    const audiences = issuer.audiences ?? [];
    if (audiences.length === 0)
      problems.push(`${at}.issuer.audiences: Required value: at least one ${at}.issuer.audiences is required`);
    audiences.forEach((audience, j) => {
      if (audience === '') problems.push(`${at}.issuer.audiences[${j}]: Required value`);
      if (audiences.indexOf(audience) !== j) problems.push(`${at}.issuer.audiences[${j}]: Duplicate value`);
    });
    const policy = issuer.audienceMatchPolicy ?? '';
    if (audiences.length > 1 && policy !== 'MatchAny')
      problems.push(
        `${at}.issuer.audienceMatchPolicy: Invalid value: audienceMatchPolicy must be MatchAny for multiple audiences`,
      );
    if (audiences.length === 1 && policy !== '' && policy !== 'MatchAny')
      problems.push(
        `${at}.issuer.audienceMatchPolicy: Invalid value: audienceMatchPolicy must be empty or MatchAny for single audience`,
      );
    if (issuer.certificateAuthority)
      problems.push(...caProblems(issuer.certificateAuthority, `${at}.issuer.certificateAuthority`));
    if (issuer.egressSelectorType && !['controlplane', 'cluster'].includes(issuer.egressSelectorType))
      problems.push(
        `${at}.issuer.egressSelectorType: Invalid value: egress selector must be either controlplane or cluster`,
      );
    const seenClaims = new Set<string>();
    (authenticator.claimValidationRules ?? []).forEach((rule, j) => {
      const path = `${at}.claimValidationRules[${j}]`;
      if (rule.claim && rule.expression)
        problems.push(`${path}: Invalid value: claim and expression can't both be set`);
      else if (!rule.claim && !rule.expression)
        problems.push(`${path}: Required value: claim or expression is required`);
      else if (rule.claim) {
        if (rule.message) problems.push(`${path}.message: Invalid value: may not be specified when claim is set`);
        if (seenClaims.has(rule.claim)) problems.push(`${path}.claim: Duplicate value`);
        seenClaims.add(rule.claim);
      } else if (rule.requiredValue)
        problems.push(`${path}.requiredValue: Invalid value: may not be specified when expression is set`);
    });
    const mappings = authenticator.claimMappings ?? { username: {} };
    problems.push(...mappingProblems(mappings.username, `${at}.claimMappings.username`, true));
    problems.push(...mappingProblems(mappings.groups, `${at}.claimMappings.groups`, false));
    if (mappings.uid?.claim && mappings.uid.expression)
      problems.push(`${at}.claimMappings.uid: Invalid value: claim and expression can't both be set`);
    (mappings.extra ?? []).forEach((extra, j) => {
      const path = `${at}.claimMappings.extra[${j}]`;
      if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/\S+$/.test(extra.key ?? ''))
        problems.push(`${path}.key: Invalid value: must be a domain-prefixed path`);
      if (extra.key !== extra.key?.toLowerCase()) problems.push(`${path}.key: Invalid value: must be lowercase`);
      if (/^([^/]*\.)?(k8s\.io|kubernetes\.io)\//.test(extra.key ?? ''))
        problems.push(
          `${path}.key: Invalid value: k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use`,
        );
      if (!extra.valueExpression) problems.push(`${path}.valueExpression: Required value`);
    });
    (authenticator.userValidationRules ?? []).forEach((rule, j) => {
      if (!rule.expression) problems.push(`${at}.userValidationRules[${j}].expression: Required value`);
    });
    if (seenIssuers.has(issuer.url)) problems.push(`${at}.issuer.url: Duplicate value`);
    seenIssuers.add(issuer.url);
  });
  if (config.anonymous && !config.anonymous.enabled && (config.anonymous.conditions ?? []).length > 0)
    problems.push('anonymous.conditions: Invalid value: enabled should be set to true when conditions are defined');
  return problems;
}

/** cert.NewPoolFromBytes: at least one certificate, and every CERTIFICATE block one. */
function caProblems(pem: string, path: string): string[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0)
    return [`${path}: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates`];
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return [`${path}: Invalid value: "<omitted>": ${(error as Error).message}`];
    }
  }
  return [];
}

/** The AuthenticationConfiguration document of a multi-document YAML text (cluster-auth prints a ClusterRoleBinding after it). */
export function authenticationConfigIn(text: string): AuthenticationConfiguration {
  const found = YAML.parseAllDocuments(text)
    .map((document) => document.toJS() as { kind?: string })
    .filter((document) => document?.kind === 'AuthenticationConfiguration');
  if (found.length !== 1) throw new Error(`expected one AuthenticationConfiguration, found ${found.length}`);
  const problems = authenticationConfigProblems(found[0]);
  if (problems.length > 0) throw new Error(`the AuthenticationConfiguration is invalid:\n${problems.join('\n')}`);
  return found[0] as AuthenticationConfiguration;
}
