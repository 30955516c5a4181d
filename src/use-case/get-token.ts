// get-token: prepare -> cache? -> (steps -> request -> extract) -> ExecCredential on stdout.
// Everything it touches arrives in `deps`; only main.ts builds the real ones.
import { INSECURE_SKIP_VERIFY_WARNING, ResponseError, UsageError } from '../errors.js';
import type { RequestConfig } from '../config/schema.js';
import { formatExecCredential, type CredentialStatus } from '../credential/exec-credential.js';
import { extractCredential, parseResponseBody } from '../credential/extract.js';
import { describeRequest, renderRequest, requestRoot, type RenderedRequest } from '../request/build.js';
import { runSteps } from '../request/steps.js';
import { cached, defaultCacheDir, openCache } from '../cache/cache.js';
import { entryKey, inputsKey, refKey } from '../cache/key.js';
import { dependencyDigest, writeRef } from '../cache/ref.js';
import type { Deps, GetTokenFlags } from './deps.js';
import { prepare, type Prepared } from './prepare.js';

export async function getToken(flags: GetTokenFlags, deps: Deps): Promise<void> {
  const deadline = deps.now() + flags.timeoutMs;
  // Redaction is bounded by the same deadline: past it, a text not yet checked is not shown.
  deps.redactor.setDeadline(() => deps.now() >= deadline);
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

async function fetchCredential(prepared: Prepared, deadline: number, deps: Deps): Promise<CredentialStatus> {
  const { config, paths, renderer, readFile } = prepared;
  const call = async (request: RenderedRequest, settings: RequestConfig) => {
    deps.trace(`request:\n${describeRequest(request)}`);
    const response = await deps.send(request, {
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
    renderer.setSteps(await runSteps(config.steps, { render, call, trace: deps.trace, redactor: deps.redactor, renderer, expired: () => deps.now() >= deadline }));
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
