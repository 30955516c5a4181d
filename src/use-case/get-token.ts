// get-token: prepare -> cache? -> (steps -> request -> extract) -> ExecCredential on stdout.
// Everything it touches arrives in `deps`; only main.ts builds the real ones.
import { INSECURE_SKIP_VERIFY_WARNING, OutputError, RequestError, ResponseError, UsageError } from '../errors.js';
import type { RequestConfig, StepConfig } from '../config/schema.js';
import type { CredentialStatus } from '../credential/exec-credential.js';
import { checkOutput, formatOutput } from '../credential/output/index.js';
import { extractCredential, parseResponseBody } from '../credential/extract.js';
import { withShownUrl } from '../request/shown-request.js';
import {
  asShown,
  describeRequest,
  renderRequest,
  requestRoot,
  templateFields,
  type RenderedRequest,
} from '../request/build.js';
import { checkHint, credentialInputs } from '../template/inputs.js';
import { runSteps } from '../request/steps.js';
import type { HttpObservation } from '../request/observe-http.js';
import { through, type CacheCall, type CacheEvent, type Fetch, type Fetched } from '../cache/index.js';
import { loginBoundMs } from '../login/grants/index.js';
import type { Deps, GetTokenFlags } from './deps.js';
import { prepare, type Prepared } from './prepare.js';
import { rawInputs } from './call-inputs.js';
import { sendOptions } from './send-options.js';
import { isInteractive, loginWithRefresh } from './login.js';

export async function getToken(flags: GetTokenFlags, deps: Deps): Promise<void> {
  const deadline = flags.deadline ?? (deps.started ?? deps.now()) + flags.timeoutMs;
  // Redaction is bounded by the same deadline: past it, a text not yet checked is not shown.
  deps.redactor.setDeadline(() => deps.now() >= deadline);
  const started = deps.now();
  const prepared = await prepare(flags, deps);
  deps.observe?.({ stage: 'prepare', ms: deps.now() - started, prepared });
  const { config, request, apiVersion } = prepared;
  checkOutput(flags.output, config);
  if (flags.login && !config.login)
    throw new UsageError(
      'LOGIN_NONE',
      'login runs the login of a config with login (authorizationCode or deviceAuthorization); this config has none (get-token asks its token API without a person)',
      { framed: true },
    );
  if (request.tls.insecureSkipVerify) deps.warn(INSECURE_SKIP_VERIFY_WARNING, true);
  const fetch: Fetch = async (refresh, asking) => {
    // A login config: the refresh token the cache holds first, else a device login (login.ts).
    if (config.login) return loginWithRefresh(prepared, flags, deadline, refresh, deps, asking);
    return fetchCredential(prepared, deadline, flags.timeoutMs, deps);
  };
  let status: CredentialStatus;
  if (flags.cache ?? config.cacheEnabled) {
    status = await through(cacheCall(prepared, flags, deadline, deps), fetch, {
      ...deps.cache,
      now: deps.now,
      trace: deps.trace,
      warn: deps.warn,
    });
    deps.redactor.add(status.token);
    deps.redactor.add(status.clientKeyData);
  } else {
    ({ status } = await fetch());
  }
  deps.observe?.({ stage: 'credential', status });
  const printed = formatOutput(flags.output, apiVersion, status);
  // checkOutput passed, so the credential holds what the format prints: else a bug, never an empty stdout.
  if (printed === undefined) throw new Error(`the credential holds nothing --output ${flags.output} prints`);
  try {
    deps.stdout(printed);
  } catch (error) {
    throw error instanceof OutputError ? error.of('the credential') : error;
  }
}

/** What the cache is told of this call (its entry's key, how it waits and remembers): get-token's, and logout's. */
export function cacheCall(prepared: Prepared, flags: GetTokenFlags, deadline: number, deps: Deps): CacheCall {
  const { config, request, refInputs } = prepared;
  return {
    ...rawInputs(flags, refInputs, deps),
    document: prepared.document,
    dependencies: prepared.dependencies,
    readSoFar: prepared.readSoFar,
    readsRelative: prepared.readsRelative,
    envNamedBySecret: prepared.renderer.envReadBySecretName,
    fileNamedBySecret: prepared.renderer.fileReadBySecretPath,
    insecure: request.tls.insecureSkipVerify,
    // `login` logs in now, whatever the entry holds, and stores what it got.
    ...(flags.login ? { fresh: true } : {}),
    deadline,
    timeoutMs: flags.timeoutMs,
    // A login waits on a person up to this bound: once it asks one, its lock says so (cache.ts), and a
    // second caller neither takes it over nor prompts too. Only a call that may prompt asks anyone.
    ...(config.login && (flags.login === true || isInteractive(deps)) ? { holdMs: loginBoundMs(config) } : {}),
    failureTtlMs: config.cacheFailureTtlMs,
    redact: (text, framed) => (framed ? deps.redactor.redactFrame(text) : deps.redactor.redact(text)),
    ...(deps.observe ? { observe: (event: CacheEvent) => deps.observe?.({ stage: 'cache', event }) } : {}),
  };
}

/** The credential and its real expiry (ms; reported to client-go expiryMargin earlier), when known. */
async function fetchCredential(
  prepared: Prepared,
  deadline: number,
  wholeTimeoutMs: number,
  deps: Deps,
): Promise<Fetched> {
  const { config, paths, renderer, readFile } = prepared;
  const call = async (request: RenderedRequest, settings: RequestConfig) => {
    deps.trace(`request:\n${describeRequest(request)}`, true);
    const view = withShownUrl(request);
    const observe = deps.observe;
    const exchanges: HttpObservation[] = [];
    const started = deps.now();
    const label = settings === config ? 'main' : (settings as StepConfig).name;
    const sent = (ok: boolean) => observe?.({ stage: 'send', label, ms: deps.now() - started, ok, exchanges });
    const response = await deps
      .send(request, {
        // The whole call, steps included, stays within --timeout.
        ...sendOptions(settings, deadline, deps, (text) => deps.redactor.redact(view(text))),
        ...(observe ? { observe: (exchange: HttpObservation) => exchanges.push(asShown(exchange, request)) } : {}),
        wholeTimeoutMs,
        announce: (line) => deps.warn(line, true),
      })
      .then(
        (answer) => {
          sent(true);
          return answer;
        },
        (error: unknown) => {
          sent(false);
          throw refusedSays(
            error,
            settings,
            settings === config ? undefined : requestRoot(settings as StepConfig),
            config.lets,
          );
        },
      );
    return parseResponseBody(response.body, response.contentType, response.bytes, (text) => deps.redactor.redact(text));
  };

  // Each template ran on placeholders when the config loaded; now it walks what the steps answered.
  const render = async (settings: RequestConfig, root?: string) => {
    try {
      // The same request as built before the steps ran: its origin is the one the config gives.
      const before =
        settings === config ? prepared.request : prepared.steps[config.steps.indexOf(settings as StepConfig)];
      return await renderRequest(settings, renderer, deps.version, readFile, deps.redactor, root, before);
    } catch (error) {
      // An answer nested past the stack (json(steps.login) of one 400 000 levels deep): its fault, exit 4.
      if (error instanceof RangeError) {
        throw new ResponseError(
          'RESPONSE_TOO_DEEP',
          `the templates of ${root ?? requestRoot()} read a step's answer nested too deeply to walk; check the API and those templates`,
          { framed: true },
        );
      }
      throw error;
    }
  };

  let request = prepared.request;
  if (config.steps.length > 0) {
    renderer.setSteps(
      await runSteps(config.steps, {
        render,
        call,
        trace: deps.trace,
        redactor: deps.redactor,
        renderer,
        expired: () => deps.now() >= deadline,
      }),
    );
    request = await render(config);
  }
  const document = await call(request, config);
  if (document === null || typeof document !== 'object') {
    throw new ResponseError(
      'RESPONSE_NOT_OBJECT',
      `the token API answered JSON ${document === null ? 'null' : typeof document}, expected an object`,
      { framed: true },
    );
  }
  let status: CredentialStatus;
  let expiresAt: number | undefined;
  const extracting = deps.now();
  try {
    ({ status, expiresAt } = extractCredential(document, config, paths.query, deps.now(), (text) =>
      deps.redactor.redact(text),
    ));
    deps.observe?.({ stage: 'extract', ms: deps.now() - extracting, status, expiresAt });
  } catch (error) {
    // A stack overflow or json-p3's recursion limit on a hostile answer: its fault, not ours.
    if (error instanceof RangeError)
      throw new ResponseError(
        'RESPONSE_TOO_DEEP',
        'the token API answered JSON nested too deeply to search; check the API and the paths',
        { framed: true },
      );
    throw error;
  }
  deps.redactor.add(status.token);
  deps.redactor.add(status.clientKeyData);
  // The plugin's frame; the time comes of the answer, redacted where it is put in.
  const expiry = status.expirationTimestamp;
  deps.trace(
    `credential extracted${expiry ? `, reported to expire at ${deps.redactor.redact(expiry)}` : ', no expiry known'}`,
    true,
  );
  return { status, expiresAt };
}

/**
 * A 401 or 403 names the inputs of that request's credentials (SPEC "Errors"), names only: the
 * env variables, vars and files its headers, query and body were made of.
 */
function refusedSays(
  error: unknown,
  settings: RequestConfig,
  root: string | undefined,
  lets: Array<[string, string]>,
): unknown {
  if (!(error instanceof RequestError) || (error.status !== 401 && error.status !== 403)) return error;
  const prefix = root ?? requestRoot();
  const templates = templateFields(settings, root)
    .filter(([path]) => path !== `${prefix}.url` && !path.startsWith(`${prefix}.tls.`))
    .map(([, template]) => template);
  const hint = checkHint(credentialInputs(lets, templates));
  if (hint === '') return error;
  // The hint names the config's inputs: the frame stays the frame.
  return new RequestError(error.code, `${error.message}${hint}`, {
    framed: error.framed,
    cause: error.cause,
    status: error.status,
    retryAfterMs: error.retryAfterMs,
  });
}
