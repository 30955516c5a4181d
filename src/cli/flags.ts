// The get-token flags, declared once: program.ts builds commander's options from this table, the
// fast path (fast-path.ts) parses the plain get-token form with it, help.ts lists it under the
// top-level --help and completion.ts takes the values it suggests; doctor takes them too, with its
// own few (DOCTOR_FLAGS). Light: the fast path loads it.
import { UsageError } from '../errors.js';
import { DURATION_PATTERN, parseDuration } from '../config/shape.js';
import type { GetTokenFlags, RequestFlags } from '../use-case/deps.js';
import type { DoctorFlags } from '../use-case/doctor/deps.js';
import { DEFAULT_OUTPUT, OUTPUTS, OUTPUTS_DESCRIBED, outputNamed } from '../credential/output/index.js';

type FlagKey =
  | 'config'
  | 'configInline'
  | 'configFromCluster'
  | 'set'
  | 'output'
  | 'apiVersion'
  | 'cache'
  | 'cacheDir'
  | 'timeout'
  | 'verbose'
  | 'kubeconfig'
  | 'context'
  | 'argocdSecret'
  | 'server'
  | 'caFile'
  | 'login';

export interface Flag {
  /** The option's property: commander's attribute name, a key of FastFlags. */
  key: FlagKey;
  long: string;
  short?: string;
  /** The name of the value in help (`<path>`); absent for a switch. */
  value?: string;
  description: string;
  default?: string;
  /** The only values accepted. */
  choices?: readonly string[];
  /** Values shell completion offers where the check is the use case's own (--api-version). */
  completions?: readonly string[];
  repeatable?: boolean;
  /** A switch that sets its key to false (--no-cache). */
  negates?: boolean;
  /** validate, render and the generators take it too (the config and its inputs). */
  request?: boolean;
}

export const DEFAULT_TIMEOUT = '30s';
const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;

export const GET_TOKEN_FLAGS: readonly Flag[] = [
  {
    key: 'config',
    long: '--config',
    short: '-c',
    value: 'path',
    description: 'config file (YAML or JSON); env WEBAPI_CREDENTIAL_CONFIG',
    request: true,
  },
  {
    key: 'configInline',
    long: '--config-inline',
    value: 'text',
    description: 'config as YAML/JSON text; env WEBAPI_CREDENTIAL_CONFIG_INLINE',
    request: true,
  },
  {
    key: 'configFromCluster',
    long: '--config-from-cluster',
    description:
      'take the config from the kubeconfig cluster entry (KUBERNETES_EXEC_INFO), which may come from another file or party',
    request: true,
  },
  {
    key: 'set',
    long: '--set',
    value: 'key=value',
    description: 'template variable vars.<key> (repeatable)',
    repeatable: true,
    request: true,
  },
  {
    key: 'output',
    long: '--output',
    short: '-o',
    value: 'format',
    description: OUTPUTS_DESCRIBED,
    default: DEFAULT_OUTPUT,
    choices: OUTPUTS,
  },
  {
    key: 'apiVersion',
    long: '--api-version',
    value: 'version',
    description: 'client.authentication.k8s.io/v1 or v1beta1 (default: from KUBERNETES_EXEC_INFO, else v1beta1)',
    completions: API_VERSIONS,
    request: true,
  },
  {
    key: 'cache',
    long: '--cache',
    description: "use the on-disk token cache (default: off, or the config's cache.enabled)",
  },
  { key: 'cache', long: '--no-cache', description: 'do not use the on-disk token cache', negates: true },
  {
    key: 'cacheDir',
    long: '--cache-dir',
    value: 'dir',
    description: 'cache directory (default: $XDG_CACHE_HOME/webapi-credential, else ~/.kube/cache/webapi-credential)',
  },
  {
    key: 'timeout',
    long: '--timeout',
    value: 'duration',
    description: 'whole-call deadline, e.g. 10s',
    default: DEFAULT_TIMEOUT,
  },
  { key: 'verbose', long: '--verbose', short: '-v', description: 'trace on stderr, secrets redacted', request: true },
];

/** An option of a generator beyond the request flags, in commander's spelling (`--merge [file]`). */
export interface GeneratorFlag {
  syntax: string;
  description: string;
}

/** kubeconfig's own options; program.ts adds them, so help and completion follow this table. */
export const KUBECONFIG_FLAGS: readonly GeneratorFlag[] = [
  {
    syntax: '--cache',
    description: 'add --cache to the exec entry (the default: kubectl runs the plugin on every command)',
  },
  { syntax: '--no-cache', description: 'do not add --cache to the exec entry' },
  {
    syntax: '--merge [file]',
    description:
      'write the cluster, user and context into a kubeconfig instead of stdout: file, else the first path of $KUBECONFIG, else ~/.kube/config; entries of the same names are replaced, everything else kept',
  },
  { syntax: '--use', description: 'with --merge: also set current-context to the new context' },
  {
    syntax: '--kuberc',
    description:
      "with --merge: also allow the plugin in kubectl's kuberc ($KUBERC, else ~/.kube/kuberc) when its credentialPluginPolicy is Allowlist (kubectl >= 1.35): its absolute path added to credentialPluginAllowlist",
  },
];

/** cluster-auth's own options (SPEC "The cluster side"); program.ts adds them beside get-token's. */
export const CLUSTER_AUTH_FLAGS: readonly GeneratorFlag[] = [
  {
    syntax: '--from-token',
    description:
      "run the config as get-token does (a login config: its cached login) and read the token's iss, aud and claims; the token is not shown",
  },
  {
    syntax: '--issuer <url>',
    description:
      "without --from-token: the issuer (default: the one whose /.well-known/openid-configuration names the config's token endpoint)",
  },
  { syntax: '--username-claim <claim>', description: 'the claim that names the user (default: sub)' },
  { syntax: '--username-prefix <prefix>', description: 'put before the username, "" for none (default: oidc:)' },
  { syntax: '--groups-claim <claim>', description: "the claim that lists the user's groups (default: none)" },
  { syntax: '--groups-prefix <prefix>', description: 'put before each group (default: the username prefix)' },
  {
    syntax: '--bind-user [name]',
    description:
      'add a ClusterRoleBinding of this user (prefixed) to --role; without a name, the user the token names (--from-token)',
  },
  { syntax: '--bind-group <group>', description: 'add a ClusterRoleBinding of this group (prefixed) to --role' },
  { syntax: '--role <clusterrole>', description: 'the ClusterRole of the binding (default: view)' },
];

export const DOCTOR_OUTPUTS = ['text', 'json'] as const;

/** doctor's own flags; it takes get-token's too, but its -o chooses the report's format. */
export const DOCTOR_FLAGS: readonly Flag[] = [
  {
    key: 'kubeconfig',
    long: '--kubeconfig',
    value: 'file',
    description: 'check the exec entry of this kubeconfig as kubectl runs it',
  },
  {
    key: 'context',
    long: '--context',
    value: 'name',
    description: 'the kubeconfig context (default: its current-context)',
  },
  {
    key: 'argocdSecret',
    long: '--argocd-secret',
    value: 'file',
    description: 'check the execProviderConfig of this Argo CD cluster secret as Argo CD runs it',
  },
  {
    key: 'server',
    long: '--server',
    value: 'url',
    description: 'https:// URL of the Kubernetes API server to ask who the credential is',
  },
  { key: 'caFile', long: '--ca-file', value: 'path', description: 'PEM CA bundle of that API server' },
  {
    key: 'output',
    long: '--output',
    short: '-o',
    value: 'format',
    description: 'the report: one line per stage, or one JSON document',
    default: 'text',
    choices: DOCTOR_OUTPUTS,
  },
  {
    key: 'login',
    long: '--login',
    description:
      'a config with login: log in now at this terminal (without it, doctor shows the login stage and runs no login)',
  },
];

/** The flag named `name` (`-c`, `--config`), if get-token has one. */
export function flagNamed(name: string): Flag | undefined {
  return GET_TOKEN_FLAGS.find((flag) => flag.long === name || flag.short === name);
}

/** commander's spelling of a flag: `-c, --config <path>`. */
export function flagSyntax(flag: Flag): string {
  return `${flag.short ? `${flag.short}, ` : ''}${flag.long}${flag.value ? ` <${flag.value}>` : ''}`;
}

/** A flag's duration in milliseconds, or undefined when it is no positive duration: the fast path steps aside. */
export function positiveDuration(value: string): number | undefined {
  const ms = DURATION_PATTERN.test(value) ? parseDuration(value) : 0;
  return ms > 0 ? ms : undefined;
}

/** --timeout's value in milliseconds, checked the same way on both routes. */
export function durationFlag(name: string, value: string): number {
  const ms = positiveDuration(value);
  if (ms === undefined)
    throw new UsageError(
      'FLAG_INVALID',
      `${name} ${JSON.stringify(value)}: expected a positive duration such as 10s, 500ms or 1m30s`,
    );
  return ms;
}

/** The values of the table's flags as either route parsed them (commander, or the fast path). */
export interface ParsedFlags {
  config?: string;
  configInline?: string;
  configFromCluster?: boolean;
  set?: string[];
  output?: string;
  apiVersion?: string;
  cache?: boolean;
  cacheDir?: string;
  timeout?: string;
  verbose?: boolean;
  kubeconfig?: string;
  context?: string;
  argocdSecret?: string;
  server?: string;
  caFile?: string;
  login?: boolean;
}

/** What validate, render and the generators take of them. */
export function requestFlags(parsed: ParsedFlags): RequestFlags {
  return {
    ...(parsed.config !== undefined ? { config: parsed.config } : {}),
    ...(parsed.configInline !== undefined ? { configInline: parsed.configInline } : {}),
    ...(parsed.configFromCluster ? { configFromCluster: true } : {}),
    ...(parsed.set !== undefined && parsed.set.length > 0 ? { set: parsed.set } : {}),
    ...(parsed.apiVersion !== undefined ? { apiVersion: parsed.apiVersion } : {}),
  };
}

/** What get-token takes of them: the same on both routes, so they cannot drift. */
export function getTokenFlags(parsed: ParsedFlags): GetTokenFlags {
  return {
    ...requestFlags(parsed),
    output: outputNamed(parsed.output),
    timeoutMs: durationFlag('--timeout', parsed.timeout ?? DEFAULT_TIMEOUT),
    ...(parsed.cache !== undefined ? { cache: parsed.cache } : {}),
    ...(parsed.cacheDir !== undefined ? { cacheDir: parsed.cacheDir } : {}),
  };
}

/** What doctor takes of them: get-token's run, the place to read it from, the report's format. */
export function doctorFlags(parsed: ParsedFlags): DoctorFlags {
  const { output, login, ...rest } = parsed;
  return {
    run: getTokenFlags(rest),
    ...(login ? { login: true } : {}),
    ...(parsed.kubeconfig !== undefined ? { kubeconfig: parsed.kubeconfig } : {}),
    ...(parsed.context !== undefined ? { context: parsed.context } : {}),
    ...(parsed.argocdSecret !== undefined ? { argocdSecret: parsed.argocdSecret } : {}),
    ...(parsed.server !== undefined ? { server: parsed.server } : {}),
    ...(parsed.caFile !== undefined ? { caFile: parsed.caFile } : {}),
    format: output === 'json' ? 'json' : 'text',
    verbose: parsed.verbose === true,
  };
}
