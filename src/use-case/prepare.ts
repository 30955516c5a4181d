// Everything up to the first byte on the network: select and read the config, validate it, check
// every template, evaluate them (steps' answers as placeholders) and build the requests. validate and
// render stop here; get-token goes on from here.
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { placeholderMessage, placeholdersLeft } from '../config/env-placeholder.js';
import { parseConfigText } from '../config/load.js';
import { normalizePath, validateProviderDocument } from '../config/validate.js';
import type { ProviderConfig } from '../config/schema.js';
import { pathEngine, type PathEngine } from '../credential/paths.js';
import {
  buildRequest,
  renderFields,
  requestRoot,
  templateFields,
  type RenderedFields,
  type RenderedRequest,
} from '../request/build.js';
import { checkTemplates } from '../template/check.js';
import { TemplateRenderer } from '../template/renderer.js';
import { namesScope } from '../template/names.js';
import { loginRequests, loginTemplates, type InteractiveGrant } from '../login/grants/index.js';
import { callInputs, type RefInputs } from './call-inputs.js';
import type { Deps, RequestFlags } from './deps.js';

export interface Dependencies {
  env: string[];
  files: string[];
}

export interface Prepared {
  config: ProviderConfig;
  paths: PathEngine;
  /** The main request; with steps, values a step gives are placeholders until the steps run. */
  request: RenderedRequest;
  /** The steps' requests, placeholders for what earlier steps give. */
  steps: RenderedRequest[];
  /** With login: each grant's own request, derived from the token request (render shows them). */
  logins: Array<{ grant: InteractiveGrant; request: RenderedRequest }>;
  /** Renders the requests again once the steps have run (fetchCredential). */
  renderer: TemplateRenderer;
  readFile: (path: string) => string;
  /** The config as parsed: what the cache key takes of it. */
  document: unknown;
  apiVersion: string;
  origin: string;
  /** What the cache's fast path finds this request by (see cache/ref.ts). */
  refInputs: RefInputs;
  /** The env names and files the request was rendered from, and every other one a template names in any branch. */
  dependencies: Dependencies;
  /**
   * The dependencies with what the templates read since, once the steps ran: a path or an env name
   * that a step's answer decides (`file(steps.x.path)`) is known only then.
   */
  readSoFar: () => Dependencies;
  /** With unsetEnvAsPlaceholder: the env names a value needs that are not set now. */
  envNeeded: string[];
  /** The relative paths the config reads (file(), tls.*File), as written. */
  relativeFiles: string[];
  /** Whether a template read or names a file by a relative path, so far (the cache's ref then holds where from). */
  readsRelative: () => boolean;
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
  const { execInfo, apiVersion, source, ref } = callInputs(flags, deps);
  const { vars } = ref;
  const document = source.kind === 'document' ? source.document : await parseConfigText(ref.configText, source.origin);
  const paths = await pathEngine(pathsIn(document));
  const result = validateProviderDocument(document, paths.check);
  if (!result.ok) throw new ConfigError(result.issues, source.origin);
  const { config } = result;
  // Every expression is parsed and checked before anything is evaluated: a config is data.
  // Each group says how many steps run before it, not which: a list per step made 20 000 steps quadratic.
  const stepNames = config.steps.map((step) => step.name);
  const templateIssues = checkTemplates(config.lets, stepNames, [
    ...config.steps.map((step, i) => ({ templates: templateFields(step, requestRoot(step)), stepsBefore: i })),
    { templates: [...templateFields(config), ...loginTemplates(config)], stepsBefore: stepNames.length },
  ]);
  const habits = templateIssues.filter((issue) => issue.habit);
  const errors = templateIssues.filter((issue) => !issue.habit);
  if (errors.length > 0) throw new ConfigError(errors, source.origin, 'TEMPLATE_SYNTAX');
  // get-token refuses to send a bare `$API_TOKEN`, so validate, render and the generators refuse it
  // too, with the same line: a CI gate built on validate must not pass a config the plugin refuses.
  if (habits.length > 0) throw new ConfigError(habits, source.origin, 'TEMPLATE_HABIT');
  deps.trace(`config from ${source.origin}`, true);

  const filesRead = new Set<string>();
  const relativeFiles = new Set<string>();
  // A relative path written in a config file means the file's directory, wherever kubectl runs us
  // from; in an inline config (or one from the cluster entry), and one that comes from env or vars
  // (GOOGLE_APPLICATION_CREDENTIALS=./key.json), it means the current directory.
  const base = source.kind === 'file' ? dirname(source.path) : undefined;
  const resolvePath = (path: string, fromConfig = true) =>
    path === '' || isAbsolute(path) ? path : base !== undefined && fromConfig ? join(base, path) : resolve(path);
  const readFile = (path: string, fromConfig = true, secretChose = false) => {
    const resolved = resolvePath(path, fromConfig);
    // A path a secret chose is a secret: listed nowhere (the renderer notes it; the cache is off).
    if (!secretChose && !isAbsolute(path)) relativeFiles.add(path);
    if (!secretChose) filesRead.add(resolved);
    return deps.readFile(resolved);
  };
  // An env value argocd-secret left as its placeholder reads as not set, so it is never registered
  // as a secret: the message below can name it, and no template sends it.
  const placeholders = placeholdersLeft(deps.env);
  const env =
    placeholders.length === 0
      ? deps.env
      : Object.fromEntries(Object.entries(deps.env).filter(([name]) => !placeholders.includes(name)));
  const renderer = new TemplateRenderer(
    {
      env,
      vars,
      cluster: execInfo.cluster,
      readFile,
      pathTried: resolvePath,
      nowMs: deps.now,
      uuid: deps.uuid,
      ...(flags.unsetEnvAsPlaceholder ? { unsetEnvAsPlaceholder: true } : {}),
      ...(flags.withholdDecided ? { withholdDecided: true } : {}),
    },
    deps.redactor,
  );
  const stepFields: RenderedFields[] = [];
  let mainFields: RenderedFields;
  const loginFields: RenderedFields[] = [];
  try {
    await renderer.defineLets(config.lets);
    // No step runs before the first byte goes out: what a step gives shows as a placeholder. Every
    // template is still evaluated, so every missing value and every dependency is known now.
    renderer.setSteps('placeholders');
    for (const step of config.steps) stepFields.push(await renderFields(step, renderer, requestRoot(step)));
    mainFields = await renderFields(config, renderer);
    // login's request too: a value it misses is named when the config loads (validate, render).
    for (const { grant, settings } of loginRequests(config))
      loginFields.push(await renderFields(settings, renderer, grant.root));
    renderer.finish();
  } catch (error) {
    // The placeholder is the cause of the "not set" a template reported: say so instead.
    refusePlaceholders(placeholders, renderer.envRead);
    throw error;
  }
  refusePlaceholders(placeholders, renderer.envRead);
  const readsCluster = namesScope(
    'cluster',
    config.lets,
    [
      ...config.steps.flatMap((step) => templateFields(step, requestRoot(step))),
      ...templateFields(config),
      ...loginTemplates(config),
    ].map(([, template]) => template),
  );
  const steps = config.steps.map((step, i) =>
    buildRequest(step, stepFields[i]!, deps.version, readFile, deps.redactor, requestRoot(step)),
  );
  const request = buildRequest(config, mainFields, deps.version, readFile, deps.redactor);
  const logins = loginRequests(config).map(({ grant, settings }, i) => ({
    grant,
    request: buildRequest(settings, loginFields[i]!, deps.version, readFile, deps.redactor, grant.root),
  }));
  // What a login would refuse when it runs is refused now: validate and render say it as the login would.
  for (const { grant, request: own } of logins)
    grant.check?.(own, (text) => deps.redactor.tryRedactFrame(text) !== text);
  // Every env name and file a template names, in every branch, not only those this run read: a
  // branch that a step's answer decides reads another next time (SPEC "Cache").
  const named = [...renderer.filesNamed].map((path) => resolvePath(path));
  const readSoFar = (): Dependencies => ({
    env: [...new Set([...renderer.envRead, ...renderer.envNamed])].sort(),
    files: [...new Set([...filesRead, ...named])].sort(),
  });
  return {
    config,
    request,
    steps,
    logins,
    renderer,
    readFile,
    document,
    paths,
    apiVersion,
    origin: source.origin,
    // The cluster info is in the key only when a template names `cluster`: otherwise every cluster
    // behind one token API shares one credential (SPEC Cache). A config taken from the cluster entry
    // is in the key as the config (configText) either way.
    refInputs: { ...ref, cluster: readsCluster ? ref.cluster : undefined },
    dependencies: readSoFar(),
    readSoFar,
    envNeeded: [...renderer.envNeeded].sort(),
    relativeFiles: [...relativeFiles],
    readsRelative: () =>
      relativeFiles.size > 0 || [...renderer.filesNamed].some((path) => path !== '' && !isAbsolute(path)),
  };
}

/** Exit 2 when a template read a variable that still holds the placeholder argocd-secret wrote. */
function refusePlaceholders(placeholders: string[], envRead: ReadonlySet<string>): void {
  const left = placeholders.filter((name) => envRead.has(name));
  if (left.length > 0) throw new UsageError('ENV_PLACEHOLDER', placeholderMessage(left));
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
