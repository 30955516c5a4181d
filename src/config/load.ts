// Finds the config in the order of SPEC "Command line" and parses it. Reading the file is the
// caller's job (readFile is injected), so everything here runs in tests without a disk.
import { UsageError } from '../errors.js';
import { unclosedOpening } from './yaml-position.js';

const ENV_CONFIG = 'WEBAPI_CREDENTIAL_CONFIG';
const ENV_CONFIG_INLINE = 'WEBAPI_CREDENTIAL_CONFIG_INLINE';

export interface ConfigFlags {
  config?: string;
  configInline?: string;
  /** --config-from-cluster: the user entry accepts a config from the cluster entry. */
  configFromCluster?: boolean;
}

export type ConfigSource =
  | { kind: 'text'; text: string; origin: string }
  | { kind: 'file'; path: string; origin: string }
  | { kind: 'document'; document: unknown; origin: string };

export function selectSource(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cluster: Record<string, unknown> | undefined,
): ConfigSource {
  if (flags.configInline !== undefined) return { kind: 'text', text: flags.configInline, origin: '--config-inline' };
  if (flags.config === '')
    throw new UsageError('CONFIG_UNREADABLE', '--config "" names no file; pass the path of a YAML or JSON config');
  if (flags.config !== undefined) return { kind: 'file', path: flags.config, origin: `--config ${flags.config}` };
  const inline = env[ENV_CONFIG_INLINE];
  if (inline) return { kind: 'text', text: inline, origin: ENV_CONFIG_INLINE };
  const file = env[ENV_CONFIG];
  if (file) return { kind: 'file', path: file, origin: `${ENV_CONFIG}=${file}` };
  const extension = cluster?.['config'];
  const carried =
    typeof extension === 'object' && extension !== null && Object.hasOwn(extension, 'webAPIProviderConfig');
  // A cluster entry may come from another kubeconfig file or another party than the user entry
  // that runs us, and a config decides where the user's env values and files go: only on request.
  if (carried && flags.configFromCluster) {
    return {
      kind: 'document',
      // Other keys of the cluster extension may belong to other tools: keep only ours.
      document: { webAPIProviderConfig: (extension as Record<string, unknown>)['webAPIProviderConfig'] },
      origin: 'KUBERNETES_EXEC_INFO spec.cluster.config',
    };
  }
  const elsewhere = `pass --config <file> or --config-inline <yaml>, or set ${ENV_CONFIG} or ${ENV_CONFIG_INLINE}`;
  if (carried) {
    throw new UsageError(
      'NO_CONFIG',
      `no config: the kubeconfig cluster entry carries a webAPIProviderConfig, but it is used only with --config-from-cluster in the exec entry's args (the cluster entry may come from another file or party than the user entry); add the flag, or ${elsewhere}`,
    );
  }
  if (flags.configFromCluster) {
    throw new UsageError(
      'NO_CONFIG',
      cluster === undefined
        ? `no config: --config-from-cluster, but KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry (Argo CD >= 3.5 sets it for execProviderConfig.config)`
        : `no config: --config-from-cluster, but the cluster entry has no webAPIProviderConfig in its extension client.authentication.k8s.io/exec (client-go sent the cluster without it)`,
    );
  }
  throw new UsageError(
    'NO_CONFIG',
    cluster === undefined || extension === undefined || extension === null
      ? `no config: ${elsewhere}, or take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry` +
          (cluster !== undefined
            ? ' (client-go sent the cluster, without that extension)'
            : env['KUBERNETES_EXEC_INFO']?.trim()
              ? ' (client-go sent no cluster info: the exec entry has no provideClusterInfo: true)'
              : '')
      : `no config: ${elsewhere}; the cluster extension client.authentication.k8s.io/exec that client-go sent holds no webAPIProviderConfig`,
  );
}

/** The most YAML tokens a config may have: the parser reads this many in well under a second. */
export const MAX_YAML_TOKENS = 10_000;

/** Whether `source` holds more than `bound` YAML tokens; counting stops at the bound. */
export function tooManyYamlTokens(
  yaml: { Lexer: typeof import('yaml').Lexer },
  source: string,
  bound = MAX_YAML_TOKENS,
): boolean {
  let tokens = 0;
  for (const _token of new yaml.Lexer().lex(source)) if (++tokens > bound) return true;
  return false;
}

/** Parses YAML or JSON (YAML 1.2 is a superset). Duplicate keys are an error, not a silent overwrite. */
export async function parseConfigText(text: string, origin: string): Promise<unknown> {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.trim() === '') throw new UsageError('CONFIG_EMPTY', `config from ${origin} is empty`);
  if (source.includes('\u0000'))
    throw new UsageError('CONFIG_PARSE', `config from ${origin} is not YAML or JSON text (it contains NUL bytes)`);
  // JSON (Argo CD's --config-inline, a config.json) needs no YAML parser, ~10 ms to load. Anything
  // JSON.parse would read differently from YAML (duplicate keys: JSON.parse keeps the last) goes
  // to the YAML parser, which reports it.
  const json = parseJsonStrictly(source);
  if (json !== undefined) return json.value;
  // yaml is CommonJS: its exports arrive as the default export under both Node and esbuild.
  const { Lexer, parse } = (await import('yaml')).default;
  // The YAML parser's time grows faster than the text: 30 000 keys in one mapping (700 kB) took
  // 85 s, 1 MiB of nested flow collections 11 s, none of it within --timeout. A config is a few
  // hundred tokens; counting them stops at the bound, so this costs a real config well under 1 ms.
  if (tooManyYamlTokens({ Lexer }, source)) {
    throw new UsageError(
      'CONFIG_TOO_LARGE',
      `config from ${origin} is too large to read as YAML: more than ${MAX_YAML_TOKENS} YAML tokens (a config has a few hundred); write it as JSON, or keep large values in files`,
    );
  }
  try {
    // logLevel 'error': a warning (an unknown !tag) would otherwise go to process.emitWarning, a
    // second, multi-line message on stderr; the value it leaves is checked by validation anyway.
    return parse(source, { uniqueKeys: true, prettyErrors: true, maxAliasCount: 50, logLevel: 'error' });
  } catch (error) {
    // prettyErrors ends the first line with a colon before the code frame it adds below.
    let first =
      String((error as Error).message)
        .split('\n')[0]
        ?.replace(/:\s*$/, '') ?? '';
    // Reported at the end of the text, where the parser gave up: name where the unclosed part opens.
    const end = (error as { pos?: number[] }).pos?.[0];
    const opening =
      end !== undefined && end >= source.trimEnd().length ? unclosedOpening(new Lexer(), source) : undefined;
    if (opening)
      first = `${first.replace(/ at line \d+, column \d+$/, '')}: it opens at line ${opening.line}, column ${opening.column} and is never closed`;
    else first += deeperNextLine(error, source);
    throw new UsageError('CONFIG_PARSE', `config from ${origin} is not valid YAML or JSON: ${first}`, { cause: error });
  }
}

/**
 * `key: value` followed by a line indented deeper (`  method: POST` then `   url: …`): YAML reads
 * the value as the start of a multi-line key and blames the line before the one to fix.
 */
function deeperNextLine(error: unknown, source: string): string {
  const { code, linePos } = error as { code?: string; linePos?: Array<{ line: number }> };
  const line = linePos?.[0]?.line;
  if (code !== 'BLOCK_AS_IMPLICIT_KEY' || line === undefined) return '';
  const lines = source.split('\n', line + 1);
  const indent = (text: string | undefined) => (text === undefined ? -1 : /^ */.exec(text)![0].length);
  return indent(lines[line]) > indent(lines[line - 1]) ? `: line ${line + 1} is indented deeper than line ${line}` : '';
}

/** JSON text without duplicate keys, parsed; undefined for anything else. */
export function parseJsonStrictly(text: string): { value: unknown } | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || hasDuplicateKeys(trimmed)) return undefined;
  try {
    return { value: JSON.parse(trimmed) };
  } catch {
    return undefined;
  }
}

/**
 * Whether any object in the JSON text repeats a key. A scan, not a parser: on text that is not
 * JSON it may say anything, which is fine, as JSON.parse or the YAML parser decides then.
 */
function hasDuplicateKeys(text: string): boolean {
  const objects: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') objects.push(new Set());
    else if (c === '[') objects.push(undefined);
    else if (c === '}' || c === ']') objects.pop();
    else if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const raw = text.slice(i, end + 1);
      i = end;
      let next = end + 1;
      while (next < text.length && /\s/.test(text[next]!)) next++;
      const keys = objects[objects.length - 1];
      if (text[next] === ':' && keys) {
        let key: string;
        try {
          key = JSON.parse(raw) as string;
        } catch {
          return true;
        }
        if (keys.has(key)) return true;
        keys.add(key);
      }
    }
  }
  return false;
}
