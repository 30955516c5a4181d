// `webapi-credential init [provider]`: the example configs of examples/, embedded when the CLI is
// built (scripts/examples.mjs), listed or printed as a starting point. Each config's header comment
// names the env variables and --set values it needs and where each is found in the provider's
// console; `--set k=v` writes the value in place of vars.k. `oidc` takes an issuer and finds its
// token endpoint by discovery (discovery.ts), the only init that may use the network. Loaded only by
// this command.
import { isAbsolute, resolve } from 'node:path';
import { RequestError, UsageError } from '../errors.js';
import { closest } from '../config/shape.js';
import { parseSetFlags } from '../config/vars.js';
import type { Deps } from './deps.js';
import { checkIssuer, discover } from './discovery.js';
import { readCertificateFile } from './certificates.js';

declare const __EXAMPLES__: string | undefined;

export interface InitFlags {
  provider: string;
  set?: string[];
  /** --timeout: discovery's whole deadline. */
  timeoutMs: number;
  /** Where a relative --set caFile is found. */
  cwd: string;
}

/** The values init itself reads (not the config): the token API's CA, for every provider. */
const INIT_KEYS = ['caFile'];
/** And for the oidc family: the issuer to discover from, the client authentication, what to ask for. */
const OIDC_KEYS = ['issuer', 'authMethod', 'scope', 'audience', 'resource'];
/** `--set authMethod=` -> the variant of examples/oidc that authenticates the client that way. */
const AUTH_METHODS: Record<string, string> = {
  client_secret_basic: 'oidc',
  client_secret_post: 'oidc/client-secret-post',
  private_key_jwt: 'oidc/private-key-jwt',
};

function examples(): Record<string, string> {
  return typeof __EXAMPLES__ === 'string' ? (JSON.parse(__EXAMPLES__) as Record<string, string>) : {};
}

/** The providers, one a line with its purpose: the first line of its header, whole. */
export function listProviders(): string {
  const all = examples();
  const names = Object.keys(all);
  const width = Math.max(...names.map((name) => name.length));
  const lines = names.map((name) => `  ${name.padEnd(width)}  ${purpose(all[name]!)}`);
  return `Providers (webapi-credential init <provider> prints its config; --set key=value fills in its vars):\n${lines.join('\n')}\n`;
}

/** The provider names, for shell completion. */
export function providerNames(): string[] {
  return Object.keys(examples());
}

function purpose(text: string): string {
  return /^# (.+)$/m.exec(text)?.[1] ?? '';
}

/** The person's login of the same issuer (SPEC "init"): discovery gives its endpoints. */
const DEVICE = 'oidc-device';
/** The browser first, the device grant where the issuer offers it: the blocks discovery finds nothing for are left out. */
const LOGIN = 'oidc-login';
const isOidc = (provider: string) =>
  provider === 'oidc' || provider.startsWith('oidc/') || provider === DEVICE || provider === LOGIN;
/** A public client's: no client authentication to choose. */
const isPerson = (provider: string) => provider === DEVICE || provider === LOGIN;

type Endpoint = 'token_endpoint' | 'device_authorization_endpoint' | 'authorization_endpoint';

/** The vars discovery fills in, each from its field of the server's metadata. */
function discovered(provider: string): Array<[string, Endpoint]> {
  if (provider === LOGIN) {
    return [
      ['tokenUrl', 'token_endpoint'],
      ['authorizationUrl', 'authorization_endpoint'],
      ['deviceUrl', 'device_authorization_endpoint'],
    ];
  }
  return provider === DEVICE
    ? [
        ['tokenUrl', 'token_endpoint'],
        ['deviceUrl', 'device_authorization_endpoint'],
      ]
    : [['tokenUrl', 'token_endpoint']];
}

/** oidc-login's grants, each kept when the issuer offers it: the var that names its endpoint, its block. */
const LOGIN_GRANTS: Array<{ name: string; block: string }> = [
  { name: 'authorizationUrl', block: 'authorizationCode' },
  { name: 'deviceUrl', block: 'deviceAuthorization' },
];

/** The config of `provider`, with the --set values written in. */
export async function providerConfig(flags: InitFlags, deps: Deps): Promise<string> {
  const all = examples();
  const vars = parseSetFlags(flags.set);
  let provider = flags.provider;
  const method = vars['authMethod'];
  if (provider === 'oidc' && method !== undefined) {
    if (!Object.hasOwn(AUTH_METHODS, method))
      throw new UsageError(
        'SET_INVALID',
        `--set authMethod=${JSON.stringify(method)}: expected ${Object.keys(AUTH_METHODS).join(', ')}`,
      );
    provider = AUTH_METHODS[method]!;
  }
  // Own names only: `init constructor` is no provider, not Object's.
  const text = Object.hasOwn(all, provider) ? all[provider] : undefined;
  if (text === undefined) {
    const names = Object.keys(all);
    const guess = closest(provider, names);
    throw new UsageError(
      'PROVIDER_UNKNOWN',
      `no provider ${JSON.stringify(provider)}${guess ? ` (did you mean ${guess}?)` : ''}; the providers are ${names.join(', ')}`,
    );
  }
  if (Object.keys(vars).length === 0) return text;
  const oidc = isOidc(provider);
  const read = readVars(text);
  // A person's login is a public client's: no client authentication to choose.
  const known = [
    ...new Set([
      ...read.keys(),
      ...INIT_KEYS,
      ...(oidc ? OIDC_KEYS.filter((key) => !isPerson(provider) || key !== 'authMethod') : []),
    ]),
  ];
  for (const [key, value] of Object.entries(vars)) {
    if (!known.includes(key))
      throw new UsageError(
        'SET_UNKNOWN',
        `--set ${key}: the ${provider} config reads no vars.${key}; it takes ${known.join(', ')}`,
      );
    // A value is data: written as a string literal, never as template text that could hold an expression.
    if (/[\u0000-\u001f\u007f]/.test(value))
      throw new UsageError('SET_INVALID', `--set ${key}: a value for init cannot hold control characters`);
  }
  if (oidc && method !== undefined && AUTH_METHODS[method] !== provider)
    throw new UsageError(
      'SET_INVALID',
      `--set authMethod: ${provider} is ${Object.keys(AUTH_METHODS).find((m) => AUTH_METHODS[m] === provider)}; give authMethod with init oidc`,
    );
  const fromDiscovery = oidc ? discovered(provider) : [];
  const isDiscovered = (key: string) => fromDiscovery.some(([name]) => name === key);
  const missing = [...read]
    .filter(
      ([key, optional]) => !optional && vars[key] === undefined && !(isDiscovered(key) && vars['issuer'] !== undefined),
    )
    .map(([key]) => key);
  if (missing.length > 0) {
    const instead = fromDiscovery.map(([name]) => `--set ${name}=URL`).join(' and ');
    const named = [
      ...new Set(missing.map((key) => (isDiscovered(key) ? `--set issuer=URL (or ${instead})` : `--set ${key}=…`))),
    ];
    throw new UsageError(
      'SET_MISSING',
      `init ${provider} needs ${named.join(' and ')}: the config reads ${missing.map((key) => `vars.${key}`).join(', ')} (its header says where each is found; init ${provider} alone prints it)`,
    );
  }

  const ca = vars['caFile'] !== undefined ? readCa(vars['caFile'], flags.cwd, deps) : undefined;
  const notes: string[] = [];
  /** oidc-login's blocks the issuer does not offer, its revocation endpoint, the issuer that names itself in the browser's answer (RFC 9207). */
  const dropped: string[] = [];
  let revocationUrl: string | undefined;
  let issuerParameter: string | undefined;
  const toDiscover = fromDiscovery.filter(([name]) => vars[name] === undefined);
  if (toDiscover.length > 0) {
    const issuer = checkIssuer(vars['issuer']!);
    const found = await discover(
      issuer,
      {
        deadline: deps.now() + flags.timeoutMs,
        timeoutMs: flags.timeoutMs,
        ...(ca ? { ca: { pem: ca.pem, from: `caFile ${ca.path}` } } : {}),
      },
      deps,
    );
    const offered = loginOffered(provider, found.metadata);
    if (provider === LOGIN) {
      if (offered.length === 0) {
        throw new RequestError(
          'DISCOVERY_NO_LOGIN',
          `the discovery document ${found.from} of ${issuer} offers no login a person can run here: no authorization_endpoint with S256 in code_challenge_methods_supported, no device_authorization_endpoint; give them with --set authorizationUrl=URL or --set deviceUrl=URL`,
        );
      }
      for (const grant of LOGIN_GRANTS.filter(
        (grant) => !offered.includes(grant.name) && vars[grant.name] === undefined,
      )) {
        dropped.push(grant.block);
        notes.push(
          `# login.${grant.block}: left out, the issuer ${issuer} offers ${grant.name === 'deviceUrl' ? 'no device_authorization_endpoint' : 'no authorization_endpoint with S256 PKCE'} (${found.from})`,
        );
      }
      const revocation = found.metadata['revocation_endpoint'];
      if (typeof revocation === 'string') {
        revocationUrl = revocation;
        notes.push(
          `# login.revocation.url: the revocation_endpoint of the issuer ${issuer}, from ${found.from} (logout revokes the refresh token there)`,
        );
      }
      if (
        found.metadata['authorization_response_iss_parameter_supported'] === true &&
        offered.includes('authorizationUrl')
      )
        issuerParameter = issuer;
    }
    for (const [name, field] of toDiscover) {
      if (provider === LOGIN && name !== 'tokenUrl' && !offered.includes(name)) continue;
      const endpoint = found.metadata[field];
      if (endpoint === undefined) {
        const why =
          field === 'device_authorization_endpoint'
            ? ': the server offers no device authorization grant (RFC 8628), or publishes it elsewhere'
            : '';
        throw new RequestError(
          field === 'token_endpoint' ? 'DISCOVERY_NO_TOKEN_ENDPOINT' : 'DISCOVERY_NO_DEVICE_ENDPOINT',
          `the discovery document ${found.from} of ${issuer} names no ${field}${why}; give it with --set ${name}=URL`,
        );
      }
      vars[name] = endpoint;
      notes.push(`# ${name}: the ${field} of the issuer ${issuer}, from ${found.from}`);
    }
  }
  const fromConfig = Object.fromEntries(Object.entries(vars).filter(([key]) => read.has(key)));

  const YAML = (await import('yaml')).default;
  const doc = YAML.parseDocument(text);
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('vars.')) node.value = fill(node.value, fromConfig);
    },
  });
  const root = ['webAPIProviderConfig'];
  if (oidc) {
    // The device login asks for its scope at the device authorization endpoint; a client credential at the token endpoint.
    const forms =
      provider === DEVICE
        ? [[...root, 'login', 'deviceAuthorization', 'form']]
        : provider === LOGIN
          ? [
              [...root, 'login', 'authorizationCode', 'query'],
              [...root, 'login', 'deviceAuthorization', 'form'],
            ]
          : [[...root, 'form']];
    // `resource` is RFC 8707's (oidc-provider, AD FS, Entra ID v1, PingFederate), `audience` Auth0's: each goes as its own field.
    for (const form of forms)
      for (const key of ['scope', 'audience', 'resource'])
        if (vars[key] !== undefined) doc.setIn([...form, key], plainOrLiteral(vars[key]!));
  }
  for (const block of dropped) doc.deleteIn([...root, 'login', block]);
  if (issuerParameter !== undefined)
    doc.setIn([...root, 'login', 'authorizationCode', 'issuer'], plainOrLiteral(issuerParameter));
  if (revocationUrl !== undefined)
    doc.setIn([...root, 'login', 'revocation'], doc.createNode({ url: plainOrLiteral(revocationUrl) }));
  if (ca) doc.setIn([...root, 'tls', 'caFile'], plainOrLiteral(ca.path));
  const given = Object.entries(vars).filter(([key]) => !toDiscover.some(([name]) => name === key));
  const filled = given
    .map(([key, value]) => `--set ${key}=${JSON.stringify(key === 'caFile' && ca ? ca.path : value)}`)
    .join(' ');
  return doc
    .toString({ lineWidth: 0 })
    .replace(/^webAPIProviderConfig:/m, (line) => [`# Filled in by init: ${filled}`, ...notes, line].join('\n'));
}

/**
 * The grants of oidc-login the issuer's metadata offers (SPEC "init"): the browser login with an
 * authorization_endpoint and S256 PKCE, the device grant with a device_authorization_endpoint.
 */
function loginOffered(provider: string, metadata: Record<string, unknown>): string[] {
  if (provider !== LOGIN) return [];
  const methods = metadata['code_challenge_methods_supported'];
  const pkce = Array.isArray(methods) && methods.includes('S256');
  return [
    ...(typeof metadata['authorization_endpoint'] === 'string' && pkce ? ['authorizationUrl'] : []),
    ...(typeof metadata['device_authorization_endpoint'] === 'string' ? ['deviceUrl'] : []),
  ];
}

/** The CA file of --set caFile, read now (discovery trusts its certificates) and named by its absolute path (the config is printed elsewhere). */
function readCa(path: string, cwd: string, deps: Deps): { path: string; pem: string } {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  return { path: absolute, pem: readCertificateFile(absolute, '--set caFile', deps, 'SET_INVALID').pem };
}

/** The vars a config reads: name -> whether it is optional (every use of it has a `??` default). */
function readVars(text: string): Map<string, boolean> {
  const body = text.slice(text.search(/^webAPIProviderConfig:/m));
  const read = new Map<string, boolean>();
  for (const match of body.matchAll(/\bvars\.([A-Za-z_]\w*)(\s*\?\?)?/g)) {
    const optional = match[2] !== undefined;
    read.set(match[1]!, (read.get(match[1]!) ?? true) && optional);
  }
  // The header names them too (a `--set k=` line): the same set, in the order a person reads them.
  return read;
}

/** A value as template text: plain where it cannot read as a template or another tool's placeholder, else a string literal. */
function plainOrLiteral(value: string): string {
  return /^[\w.:/@%+=,~ -]*$/.test(value) ? value : `{{ ${literal(value)} }}`;
}

function literal(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

// The right side of `vars.k ?? …` that a given value makes dead: a string literal or a name, ending
// where the expression, a call's argument or an object's value ends.
const DEFAULT_OPERAND = String.raw`(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?=\s*(?:[),}\]]|$))`;

/**
 * `{{ vars.k }}` becomes the value as text; vars.k inside a larger expression a string literal, and
 * its default goes: `file(vars.k ?? "/path")` becomes `file('value')`, never `'value' ?? "/path"`.
 */
function fill(text: string, vars: Record<string, string>): string {
  const keys = Object.keys(vars).join('|');
  if (keys === '') return text;
  // One pass over the config's text: a value written in is never read again, or a later key would
  // rewrite a `vars.<key>` inside an earlier value's literal and its own literal would close that one.
  const use = new RegExp(
    `\\{\\{\\s*vars\\.(${keys})\\s*\\}\\}|\\bvars\\.(${keys})\\s*\\?\\?\\s*${DEFAULT_OPERAND}|\\bvars\\.(${keys})\\b(?![\\w$])`,
    'g',
  );
  const out = text.replace(use, (_whole, whole?: string, defaulted?: string, bare?: string) =>
    whole !== undefined ? plainOrLiteral(vars[whole]!) : literal(vars[(defaulted ?? bare)!]!),
  );
  // What is left of `{{ vars.k ?? "x" }}` is `{{ 'value' }}`: the value as text where it can be.
  return out.replace(/\{\{\s*'((?:[^'\\]|\\.)*)'\s*\}\}/g, (whole, inner: string) => {
    const value = inner.replace(/\\(.)/g, '$1');
    return plainOrLiteral(value) === value ? value : whole;
  });
}
