// get-token: prepare -> cache? -> (steps -> request -> extract) -> ExecCredential on stdout.
// Everything it touches arrives in `deps`; only main.ts builds the real ones.
import { INSECURE_SKIP_VERIFY_WARNING, OutputError, RequestError, ResponseError, UsageError } from '../errors.js';
import type { RequestConfig, StepConfig } from '../config/schema.js';
import { formatExecCredential, type CredentialStatus } from '../credential/exec-credential.js';
import { extractCredential, parseResponseBody } from '../credential/extract.js';
import { describeRequest, renderRequest, requestRoot, templateFields, type RenderedRequest } from '../request/build.js';
import { checkHint, credentialInputs } from '../template/inputs.js';
import { runSteps } from '../request/steps.js';
import type { HttpObservation } from '../request/observe-http.js';
import { cached, defaultCacheDir, openCache } from '../cache/cache.js';
import { writeEntry } from '../cache/store.js';
import { entryKey, inputsKey, refKey } from '../cache/key.js';
import { dependencyDigest, readRef, writeRef } from '../cache/ref.js';
import type { Deps, GetTokenFlags } from './deps.js';
import { prepare, type Dependencies, type Prepared } from './prepare.js';

export async function getToken(flags: GetTokenFlags, deps: Deps): Promise<void> {
  const deadline = flags.deadline ?? deps.now() + flags.timeoutMs;
  // Redaction is bounded by the same deadline: past it, a text not yet checked is not shown.
  deps.redactor.setDeadline(() => deps.now() >= deadline);
  const started = deps.now();
  const prepared = await prepare(flags, deps);
  deps.observe?.({ stage: 'prepare', ms: deps.now() - started, prepared });
  const { config, request, apiVersion } = prepared;
  if (flags.output === 'token' && !config.paths.token) {
    throw new UsageError('OUTPUT_TOKEN', '--output token needs a tokenPath; this config yields a client certificate');
  }
  if (request.tls.insecureSkipVerify) deps.warn(INSECURE_SKIP_VERIFY_WARNING);
  // Whether this call asked the token API (its steps ran) or was served from the cache.
  let fetched = false;
  const fetch = () => {
    fetched = true;
    return fetchCredential(prepared, deadline, flags.timeoutMs, deps);
  };
  let status: CredentialStatus;
  const dir = flags.cacheDir ?? defaultCacheDir(deps.env, deps.cache.homedir);
  const cacheDeps = { ...deps.cache, now: deps.now, trace: deps.trace };
  const secret = flags.cache ?? config.cacheEnabled ? openCache(dir, cacheDeps) : undefined;
  const keys = secret ? cacheKeys(secret, prepared, flags, dir, deps) : undefined;
  if (secret && keys) {
    const { ref, inputs, key, used } = keys;
    deps.observe?.({ stage: 'cache', dir, key });
    const enter = () => {
      try {
        // Lets the next call find this entry (a credential or a failure) without parsing and
        // rendering (cache/ref.ts), with what this call read: after a fetch, what the steps' answers
        // made the templates read this time (not added to the last ref's: a path an answer names
        // anew each time would grow the list, and the files each call hashes, without end); after
        // a hit, what the key was made of.
        writeRef(deps.cache.fs, dir, ref, { inputs, ...(fetched ? prepared.readSoFar() : used), insecure: request.tls.insecureSkipVerify }, deps.cache.unique());
      } catch (error) {
        deps.trace(`cache: cannot store the ref (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
    };
    const failures = { ttlMs: config.cacheFailureTtlMs, redact: (text: string) => deps.redactor.redact(text) };
    status = await cached(dir, key, { deadline, timeoutMs: flags.timeoutMs }, fetch, cacheDeps, failures, enter);
    deps.redactor.add(status.token);
    deps.redactor.add(status.clientKeyData);
    if (fetched) storeUnderLearnedKey(secret, dir, inputs, used, prepared, status, deps);
  } else {
    status = await fetch();
  }
  try {
    deps.stdout(flags.output === 'token' ? `${status.token}\n` : formatExecCredential(apiVersion, status));
  } catch (error) {
    throw error instanceof OutputError ? error.of('the credential') : error;
  }
}

/**
 * Keyed by the inputs and the values the templates read, never by the rendered request: a jwt(),
 * now(), uuid() or a step's answer would make every call's key a new one. Undefined when the
 * inputs cannot be hashed: client-go passes the cluster entry's extension as the kubeconfig has it,
 * and one nested past the stack would crash the hashing (RangeError). The cache is then off for
 * this call; the credential is still fetched and printed.
 */
function cacheKeys(secret: Uint8Array, prepared: Prepared, flags: GetTokenFlags, dir: string, deps: Deps): { ref: string; inputs: string; key: string; used: Dependencies } | undefined {
  const { refInputs, dependencies } = prepared;
  if (prepared.renderer.envReadBySecretName) {
    // The name is a secret: a ref would hold it in clear, and a key without it would serve a credential that variable no longer gives.
    deps.trace('cache: off for this call: a template reads env by a name that a secret gives (env[env.X])');
    return undefined;
  }
  try {
    const ref = refKey(secret, { ...refInputs, version: deps.version, cacheFlag: flags.cache });
    const inputs = inputsKey(secret, { version: deps.version, document: prepared.document, vars: refInputs.vars, cluster: refInputs.cluster });
    // What a step's answer made the templates read last time (file(steps.x.path)) is known only from
    // the ref that run wrote: keyed by it too, a rotated file misses (SPEC "Cache").
    const known = readRef(deps.cache.fs, dir, ref, deps.cache.uid);
    const used = known?.inputs === inputs ? union(dependencies, known) : dependencies;
    const key = entryKey(secret, inputs, dependencyDigest(deps.env, used.env, used.files, deps.readFile));
    return { ref, inputs, key, used };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    deps.trace('cache: off for this call: the cluster info of KUBERNETES_EXEC_INFO is nested too deeply to hash');
    return undefined;
  }
}

async function fetchCredential(prepared: Prepared, deadline: number, wholeTimeoutMs: number, deps: Deps): Promise<CredentialStatus> {
  const { config, paths, renderer, readFile } = prepared;
  const call = async (request: RenderedRequest, settings: RequestConfig) => {
    deps.trace(`request:\n${describeRequest(request)}`);
    // A message names the URL as `render` shows it: a short secret in its path (a letter a
    // comparison chose) is [REDACTED] there, which the redactor alone could not find.
    const { shown } = request;
    const view = shown ? (text: string) => text.replaceAll(request.url, shown.url).replaceAll(beforeQuery(request.url), beforeQuery(shown.url)) : (text: string) => text;
    const observe = deps.observe;
    const exchanges: HttpObservation[] = [];
    const started = deps.now();
    const label = settings === config ? 'main' : (settings as StepConfig).name;
    const sent = (ok: boolean) => observe?.({ stage: 'send', label, ms: deps.now() - started, ok, exchanges });
    const response = await deps.send(request, {
      ...(observe ? { observe: (exchange: HttpObservation) => exchanges.push(exchange) } : {}),
      timeoutMs: settings.timeoutMs,
      retryLimit: settings.retryLimit,
      maxResponseBytes: settings.maxResponseBytes,
      allowInsecureHTTP: settings.allowInsecureHTTP,
      // The whole call, steps included, stays within --timeout.
      deadline,
      wholeTimeoutMs,
      templatedHeaders: Object.keys(settings.headers),
      env: deps.env,
      now: deps.now,
      random: deps.random,
      log: deps.trace,
      announce: deps.warn,
      redact: (text) => deps.redactor.redact(view(text)),
      secret: (value) => deps.redactor.add(value),
    }).then(
      (answer) => {
        sent(true);
        return answer;
      },
      (error: unknown) => {
        sent(false);
        throw refusedSays(error, settings, settings === config ? undefined : requestRoot(settings as StepConfig), config.lets);
      },
    );
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
    renderer.setSteps(await runSteps(config.steps, { render, call, trace: deps.trace, redactor: deps.redactor, renderer, expired: () => deps.now() >= deadline }));
    request = await render(config);
  }
  const document = await call(request, config);
  if (document === null || typeof document !== 'object') {
    throw new ResponseError('RESPONSE_NOT_OBJECT', `the token API answered JSON ${document === null ? 'null' : typeof document}, expected an object`);
  }
  let status: CredentialStatus;
  const extracting = deps.now();
  try {
    let expiresAt: number | undefined;
    ({ status, expiresAt } = extractCredential(document, config, paths.query, deps.now()));
    deps.observe?.({ stage: 'extract', ms: deps.now() - extracting, status, expiresAt });
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

/**
 * A 401 or 403 names the inputs of that request's credentials (SPEC "Errors"), names only: the
 * env variables, vars and files its headers, query and body were made of.
 */
function refusedSays(error: unknown, settings: RequestConfig, root: string | undefined, lets: Array<[string, string]>): unknown {
  if (!(error instanceof RequestError) || (error.status !== 401 && error.status !== 403)) return error;
  const prefix = root ?? requestRoot();
  const templates = templateFields(settings, root)
    .filter(([path]) => path !== `${prefix}.url` && !path.startsWith(`${prefix}.tls.`))
    .map(([, template]) => template);
  const hint = checkHint(credentialInputs(lets, templates));
  if (hint === '') return error;
  return new RequestError(error.code, `${error.message}${hint}`, { cause: error.cause, status: error.status, retryAfterMs: error.retryAfterMs });
}

/**
 * The next call keys on what the ref now records, which includes what this call's steps made the
 * templates read (file(steps.x.path)): a key this call could not know before its steps ran. The
 * credential is stored under that key too, so the first repeat is a hit, not a second fetch.
 */
function storeUnderLearnedKey(secret: Uint8Array, dir: string, inputs: string, used: Dependencies, prepared: Prepared, status: CredentialStatus, deps: Deps): void {
  if (!status.expirationTimestamp) return;
  const learned = prepared.readSoFar();
  if (learned.env.join('\0') === used.env.join('\0') && learned.files.join('\0') === used.files.join('\0')) return;
  try {
    const key = entryKey(secret, inputs, dependencyDigest(deps.env, learned.env, learned.files, deps.readFile));
    writeEntry(deps.cache.fs, dir, key, status, deps.cache.unique(), deps.now());
  } catch (error) {
    deps.trace(`cache: cannot store the entry under what the steps made the templates read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

function union(a: Dependencies, b: Dependencies): Dependencies {
  return { env: [...new Set([...a.env, ...b.env])].sort(), files: [...new Set([...a.files, ...b.files])].sort() };
}

function beforeQuery(url: string): string {
  return url.split(/[?#]/)[0]!;
}
