// The use cases: load -> validate -> render -> (request -> extract -> write). Everything they touch
// arrives in `deps`; only main.ts builds the real ones.
import { dirname, isAbsolute, join } from 'node:path';
import { ConfigError, CredentialError, INSECURE_SKIP_VERIFY_WARNING, readProblem, ResponseError, UsageError } from './errors.js';
import { parseConfigText, selectSource, type ConfigFlags } from './config/load.js';
import { normalizePath, validateProviderDocument } from './config/validate.js';
import { pathEngine, type PathEngine } from './paths.js';
import type { ProviderConfig, RequestConfig } from './config/schema.js';
import { formatExecCredential, readExecInfo, resolveApiVersion, type CredentialStatus } from './exec-credential.js';
import { extractCredential, parseResponseBody } from './extract.js';
import type { Redactor } from './redact.js';
import { buildRequest, describeRequest, renderFields, renderRequest, requestRoot, templateFields, type RenderedFields, type RenderedRequest } from './request.js';
import { checkTemplates, TemplateRenderer } from './template/renderer.js';
import { parseSetFlags } from './vars.js';
import { cached, defaultCacheDir, openCache, type CacheDeps } from './cache/cache.js';
import { entryKey, inputsKey, refKey, type RefInputs } from './cache/key.js';
import { dependencyDigest, writeRef } from './cache/ref.js';
import { clearDir } from './cache/store.js';

export interface Deps {
  env: Record<string, string | undefined>;
  readFile: (path: string) => string;
  stdout: (text: string) => void;
  /** One line for people; the caller adds the prefix and the newline and redacts. */
  warn: (line: string) => void;
  /** --verbose trace; a no-op otherwise. */
  trace: (line: string) => void;
  now: () => number;
  random: () => number;
  version: string;
  redactor: Redactor;
  cache: Omit<CacheDeps, 'trace' | 'now'> & { homedir: string };
}

export interface RequestFlags extends ConfigFlags {
  /** Refuse `${X}` and `$X` in literal template text instead of warning (get-token). */
  strictHabits?: boolean;
  set?: string[];
  apiVersion?: string;
}

export interface GetTokenFlags extends RequestFlags {
  output: 'exec-credential' | 'token';
  timeoutMs: number;
  /** --cache / --no-cache; undefined leaves it to the config. */
  cache?: boolean;
  cacheDir?: string;
}

interface Prepared {
  config: ProviderConfig;
  paths: PathEngine;
  /** The main request; with steps, values a step gives are placeholders until the steps run. */
  request: RenderedRequest;
  /** The steps' requests, placeholders for what earlier steps give. */
  steps: RenderedRequest[];
  /** Renders the requests again once the steps have run (fetchCredential). */
  renderer: TemplateRenderer;
  readFile: (path: string) => string;
  /** The config as parsed: what the cache key takes of it. */
  document: unknown;
  apiVersion: string;
  origin: string;
  /** What the cache's fast path finds this request by (see cache/ref.ts). */
  refInputs: Omit<RefInputs, 'cacheFlag' | 'version'>;
  /** The env names and files the request was rendered from. */
  dependencies: { env: string[]; files: string[] };
}

/** Everything up to the first byte on the network. validate and render stop here. */
export async function prepare(flags: RequestFlags, deps: Deps): Promise<Prepared> {
  try {
    return await prepareConfig(flags, deps);
  } catch (error) {
    // A config nested deeper than the stack goes (a json body 100 000 levels deep): its fault, exit 2.
    if (error instanceof RangeError) throw new UsageError('CONFIG_TOO_DEEP', 'the config is nested too deeply to read');
    throw error;
  }
}

async function prepareConfig(flags: RequestFlags, deps: Deps): Promise<Prepared> {
  const execInfo = readExecInfo(deps.env['KUBERNETES_EXEC_INFO']);
  const apiVersion = resolveApiVersion(execInfo, flags.apiVersion);
  const vars = parseSetFlags(flags.set);
  const source = selectSource(flags, deps.env, execInfo.cluster);
  let document: unknown;
  let configText: string;
  if (source.kind === 'document') {
    document = source.document;
    configText = JSON.stringify(document);
  } else {
    let text: string;
    if (source.kind === 'text') text = source.text;
    else {
      try {
        text = deps.readFile(source.path);
      } catch (error) {
        throw new UsageError('CONFIG_UNREADABLE', `cannot read config ${source.path}: ${readProblem(error)}`, { cause: error });
      }
    }
    configText = text;
    document = await parseConfigText(text, source.origin);
  }
  const paths = await pathEngine(pathsIn(document));
  const result = validateProviderDocument(document, paths.check);
  if (!result.ok) throw new ConfigError(result.issues, source.origin);
  const { config } = result;
  // Every expression is parsed and checked before anything is evaluated: a config is data.
  const stepNames = config.steps.map((step) => step.name);
  const templateIssues = checkTemplates(config.lets, [
    ...config.steps.map((step, i) => ({ templates: templateFields(step, requestRoot(step)), stepsBefore: stepNames.slice(0, i), allSteps: stepNames })),
    { templates: templateFields(config), stepsBefore: stepNames, allSteps: stepNames },
  ]);
  const habits = templateIssues.filter((issue) => issue.habit);
  const errors = templateIssues.filter((issue) => !issue.habit);
  if (errors.length > 0) throw new ConfigError(errors, source.origin, 'TEMPLATE_SYNTAX');
  // validate and render show what would be sent; get-token must not send it.
  if (habits.length > 0 && flags.strictHabits) throw new ConfigError(habits, source.origin, 'TEMPLATE_HABIT');
  for (const habit of habits) deps.warn(`${habit.path}: ${habit.message}`);
  deps.trace(`config from ${source.origin}`);

  const filesRead = new Set<string>();
  // A relative path in a config file means the file's directory, wherever kubectl runs us from; in
  // an inline config (or one from the cluster entry) it means the current directory.
  const base = source.kind === 'file' ? dirname(source.path) : undefined;
  const readFile = (path: string) => {
    const resolved = base !== undefined && !isAbsolute(path) ? join(base, path) : path;
    filesRead.add(resolved);
    return deps.readFile(resolved);
  };
  const renderer = new TemplateRenderer(
    { env: deps.env, vars, cluster: execInfo.cluster, readFile, nowMs: deps.now },
    deps.redactor,
  );
  await renderer.defineLets(config.lets);
  // No step runs before the first byte goes out: what a step gives shows as a placeholder. Every
  // template is still evaluated, so every missing value and every dependency is known now.
  renderer.setSteps('placeholders');
  const stepFields: RenderedFields[] = [];
  for (const step of config.steps) stepFields.push(await renderFields(step, renderer, requestRoot(step)));
  const mainFields = await renderFields(config, renderer);
  renderer.finish();
  const steps = config.steps.map((step, i) => buildRequest(step, stepFields[i]!, deps.version, readFile, deps.redactor, requestRoot(step)));
  const request = buildRequest(config, mainFields, deps.version, readFile, deps.redactor);
  return {
    config,
    request,
    steps,
    renderer,
    readFile,
    document,
    paths,
    apiVersion,
    origin: source.origin,
    refInputs: { sourceKind: source.kind, configText, vars, cluster: execInfo.cluster },
    dependencies: { env: [...renderer.envRead].sort(), files: [...filesRead].sort() },
  };
}

export async function validate(flags: RequestFlags, deps: Deps): Promise<void> {
  const { request, origin, config, steps } = await prepare(flags, deps);
  const first = steps.map((step, i) => `steps.${config.steps[i]!.name} ${step.method} ${step.url}, then `).join('');
  deps.stdout(deps.redactor.redact(`config from ${origin} is valid: ${first}${request.method} ${request.url}\n`));
}

export async function render(flags: RequestFlags, deps: Deps): Promise<void> {
  const { request, config, steps } = await prepare(flags, deps);
  if (steps.length === 0) {
    deps.stdout(deps.redactor.redact(describeRequest(request)));
    return;
  }
  // Every request in the order it is sent, each under the name of its place in the config.
  const parts = steps.map((step, i) => `# steps.${config.steps[i]!.name}\n${describeRequest(step)}`);
  parts.push(`# webAPIProviderConfig\n${describeRequest(request)}`);
  deps.stdout(deps.redactor.redact(parts.join('\n')));
}

export async function getToken(flags: GetTokenFlags, deps: Deps): Promise<void> {
  const deadline = deps.now() + flags.timeoutMs;
  const prepared = await prepare({ ...flags, strictHabits: true }, deps);
  const { config, request, apiVersion, refInputs, dependencies } = prepared;
  if (flags.output === 'token' && !config.paths.token) {
    throw new UsageError('OUTPUT_TOKEN', '--output token needs a tokenPath; this config yields a client certificate');
  }
  if (request.tls.insecureSkipVerify) deps.warn(INSECURE_SKIP_VERIFY_WARNING);
  const fetch = () => fetchCredential(prepared, deadline, deps);
  let status: CredentialStatus;
  const dir = flags.cacheDir ?? defaultCacheDir(deps.env, deps.cache.homedir);
  const cacheDeps = { ...deps.cache, now: deps.now, trace: deps.trace };
  const secret = flags.cache ?? config.cacheEnabled ? openCache(dir, cacheDeps) : undefined;
  if (secret) {
    // Keyed by the inputs and the values the templates read, never by the rendered request: a
    // jwt(), now(), uuid() or a step's answer would make every call's key a new one.
    const ref = refKey(secret, { ...refInputs, version: deps.version, cacheFlag: flags.cache });
    const inputs = inputsKey(secret, { version: deps.version, document: prepared.document, vars: refInputs.vars, cluster: refInputs.cluster });
    const key = entryKey(secret, inputs, dependencyDigest(deps.env, dependencies.env, dependencies.files, deps.readFile));
    status = await cached(dir, key, { deadline, timeoutMs: flags.timeoutMs }, fetch, cacheDeps);
    deps.redactor.add(status.token);
    deps.redactor.add(status.clientKeyData);
    if (status.expirationTimestamp) {
      try {
        // Lets the next call find this entry without parsing and rendering (cache/ref.ts).
        writeRef(deps.cache.fs, dir, ref, { inputs, ...dependencies, insecure: request.tls.insecureSkipVerify }, deps.cache.unique());
      } catch (error) {
        deps.trace(`cache: cannot store the ref (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
    }
  } else {
    status = await fetch();
  }
  deps.stdout(flags.output === 'token' ? `${status.token}\n` : formatExecCredential(apiVersion, status));
}

export function clearCache(flags: { cacheDir?: string }, deps: Deps): void {
  const dir = flags.cacheDir ?? defaultCacheDir(deps.env, deps.cache.homedir);
  let removed: number;
  try {
    removed = clearDir(deps.cache.fs, dir, deps.cache.uid);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new UsageError('CACHE_CLEAR', `cannot clear the cache in ${dir}: ${why}`, { cause: error });
  }
  deps.stdout(`removed ${removed} cached credential${removed === 1 ? '' : 's'} from ${dir}\n`);
}

async function fetchCredential(prepared: Prepared, deadline: number, deps: Deps): Promise<CredentialStatus> {
  const { config, paths, renderer, readFile } = prepared;
  const { send } = await import('./http.js');
  const call = async (request: RenderedRequest, settings: RequestConfig) => {
    deps.trace(`request:\n${describeRequest(request)}`);
    const response = await send(request, {
      timeoutMs: settings.timeoutMs,
      retryLimit: settings.retryLimit,
      maxResponseBytes: settings.maxResponseBytes,
      allowInsecureHTTP: settings.allowInsecureHTTP,
      // The whole call, steps included, stays within --timeout.
      deadline,
      templatedHeaders: Object.keys(settings.headers),
      env: deps.env,
      now: deps.now,
      random: deps.random,
      log: deps.trace,
      redact: (text) => deps.redactor.redact(text),
      secret: (value) => deps.redactor.add(value),
    });
    return parseResponseBody(response.body, response.contentType, response.bytes);
  };

  // Each template ran on placeholders when the config loaded; now it walks what the steps answered.
  const render = async (settings: RequestConfig, root?: string) => {
    try {
      return await renderRequest(settings, renderer, deps.version, readFile, deps.redactor, root);
    } catch (error) {
      // An answer nested past the stack (json(steps.login) of one 400 000 levels deep): its fault, exit 4.
      if (error instanceof RangeError) {
        throw new ResponseError('RESPONSE_TOO_DEEP', `the templates of ${root ?? requestRoot()} read a step's answer nested too deeply to walk; check the API and those templates`);
      }
      throw error;
    }
  };

  let request = prepared.request;
  if (config.steps.length > 0) {
    const answers: Record<string, unknown> = {};
    for (const step of config.steps) {
      renderer.setSteps(answers);
      const root = requestRoot(step);
      deps.trace(`steps.${step.name}`);
      try {
        const answer = await call(await render(step, root), step);
        if (answer === null || typeof answer !== 'object') {
          throw new ResponseError('RESPONSE_NOT_OBJECT', `the token API answered JSON ${answer === null ? 'null' : typeof answer}, expected an object`);
        }
        // Whatever a step answers may be a credential: every string of it is a secret.
        registerStrings(answer, deps.redactor);
        Object.defineProperty(answers, step.name, { value: answer, enumerable: true });
      } catch (error) {
        // The step is named in every error of its own, whatever its exit code.
        if (error instanceof CredentialError) error.message = `steps.${step.name}: ${error.message}`;
        throw error;
      }
    }
    renderer.setSteps(answers);
    request = await render(config);
  }
  const document = await call(request, config);
  if (document === null || typeof document !== 'object') {
    throw new ResponseError('RESPONSE_NOT_OBJECT', `the token API answered JSON ${document === null ? 'null' : typeof document}, expected an object`);
  }
  let status: CredentialStatus;
  try {
    ({ status } = extractCredential(document, config, paths.query, deps.now()));
  } catch (error) {
    // A stack overflow or json-p3's recursion limit on a hostile answer: its fault, not ours.
    if (error instanceof RangeError) throw new ResponseError('RESPONSE_TOO_DEEP', 'the token API answered JSON nested too deeply to search; check the API and the paths');
    throw error;
  }
  deps.redactor.add(status.token);
  deps.redactor.add(status.clientKeyData);
  deps.trace(`credential extracted${status.expirationTimestamp ? `, reported to expire at ${status.expirationTimestamp}` : ', no expiry known'}`);
  return status;
}

function registerStrings(value: unknown, redactor: Redactor, depth = 0): void {
  if (typeof value === 'string') redactor.add(value);
  else if (depth < 64 && typeof value === 'object' && value !== null) for (const item of Object.values(value)) registerStrings(item, redactor, depth + 1);
}

const PATH_FIELDS = ['tokenPath', 'expiryPath', 'expiresInPath', 'clientCertificateDataPath', 'clientKeyDataPath'];

/** The JSONPaths a document holds, as validation will see them: what decides if json-p3 is needed. */
function pathsIn(document: unknown): string[] {
  const provider = (document as { webAPIProviderConfig?: unknown } | null)?.webAPIProviderConfig;
  if (typeof provider !== 'object' || provider === null) return [];
  return PATH_FIELDS.map((field) => (provider as Record<string, unknown>)[field])
    .filter((path): path is string => typeof path === 'string')
    .map(normalizePath);
}

