// The interactive login of a config with `login` (SPEC "Interactive login"): its grant
// (login/grants/) when a person can answer, never a request when nobody can; the refresh of RFC 6749
// §6 for a refresh token the cache keeps. get-token calls loginCredential() on a miss; the `login`
// command (login-command.ts) runs get-token with a login now.
import { resolve } from 'node:path';
import { ResponseError, RequestError, type CredentialError } from '../errors.js';
import { selectSource } from '../config/load.js';
import { readExecInfo, type CredentialStatus } from '../credential/exec-credential.js';
import { extractCredential } from '../credential/extract.js';
import { requestRoot } from '../request/build.js';
import {
  answerLifetimeMs,
  LoginError,
  MAX_LOGIN_MS,
  readTokenAnswer,
  refreshTokenOf,
  withGrant,
} from '../login/token.js';
import {
  pickGrant,
  type BrowserSession,
  type GrantSession,
  type InteractiveGrant,
  type TokenGrant,
} from '../login/grants/index.js';
import { refreshRequest } from '../login/grants/refresh.js';
import { defaultCacheDir, keepingRefreshToken, type Fetched, type Refresh } from '../cache/index.js';
import {
  isInvalidGrant,
  noIdTokenOnRefresh,
  noTimeToRefresh,
  RefreshRefused,
  refreshFits,
  refused,
} from '../login/refresh.js';
import type { Deps, GetTokenFlags } from './deps.js';
import type { Prepared } from './prepare.js';
import { named, post, render } from './login-requests.js';
import { shellWord } from './shell-word.js';

export interface LoginResult {
  status: CredentialStatus;
  /** The real expiry (ms), when known: the cache keeps it beside the one reported to client-go. */
  expiresAt?: number;
  /** The answer's refresh_token, for the cache to keep in the entry (a secret). */
  refreshToken?: string;
}

/**
 * The credential of a login config on a cache miss: the refresh token the entry holds first (no
 * person needed, so also when the call is not interactive), else a login. Only the issuer's
 * `invalid_grant` drops the token and logs in, which prompts only when a person can answer; its
 * refusal is never remembered as the call's failure. Every other failure of the refresh (a
 * gateway's page, invalid_client, an outage, the deadline) is thrown as it is and keeps the token:
 * the cache remembers or serves through it by its ordinary rules. A call with too little time left
 * starts no refresh (login/refresh.ts refreshFits). `login` logs in anew whatever the entry holds.
 * `asking` is called right before a person is asked (the cache's lock then says a login holds it).
 */
export async function loginWithRefresh(
  prepared: Prepared,
  flags: LoginFlags,
  deadline: number,
  refresh: Refresh | undefined,
  deps: Deps,
  asking?: () => void,
): Promise<Fetched> {
  let refused: string | undefined;
  let refusedFramed = false;
  if (refresh && !flags.login) {
    const whole = flags.timeoutMs ?? Number.POSITIVE_INFINITY;
    if (!refreshFits(deps.now(), deadline, prepared.config.timeoutMs, whole))
      throw noTimeToRefresh(deadline - deps.now(), whole);
    try {
      return toFetched(await refreshCredential(prepared, refresh.token, deadline, deps));
    } catch (error) {
      if (!(error instanceof RefreshRefused)) throw error;
      refresh.drop();
      refused = (error as CredentialError).message;
      refusedFramed = error.framed;
      deps.trace(`the refresh token was refused (${refused}): dropped; a login is needed`, error.framed);
    }
  }
  try {
    return toFetched(await loginCredential(prepared, flags, deps, asking));
  } catch (error) {
    // Nobody to log in: the line says why the kept refresh token no longer serves.
    if (refused !== undefined && error instanceof LoginError && error.code === 'LOGIN_NEEDED') {
      throw new LoginError('LOGIN_NEEDED', `${refused}, so the kept refresh token was dropped; ${error.message}`, {
        framed: refusedFramed && error.framed,
      });
    }
    throw error;
  }
}

function toFetched({ status, expiresAt, refreshToken }: LoginResult): Fetched {
  return { status, expiresAt, ...(refreshToken !== undefined ? { refreshToken } : {}) };
}

/** What a login reads of the call's flags: `login`, what the refusal's command repeats, the grant asked for, and --timeout (whether a refresh fits). */
export type LoginFlags = Pick<
  GetTokenFlags,
  'login' | 'config' | 'configInline' | 'configFromCluster' | 'set' | 'cacheDir' | 'grant' | 'noBrowser'
> & { timeoutMs?: number };

/**
 * The `login` command a person pastes at a terminal to fill the cache entry this call reads: the
 * same config (a file by its absolute path; an inline one, which may be long, named as a
 * placeholder), the same --set values (not secret: SPEC "Errors") and the cache directory unless
 * it is the default. One line whatever was typed: words are quoted as a POSIX shell reads them.
 */
export function loginCommandLine(
  flags: Omit<LoginFlags, 'login'>,
  env: Record<string, string | undefined>,
  homedir: string,
  redact: (text: string) => string,
): string {
  // Redacted before it is quoted: quoting spells a value another way ('\'' for a quote, \t for a
  // tab), in which the report's redaction would no longer find a secret the value holds.
  const word = (text: string) => shellWord(redact(text));
  const source = selectSource(flags, env, readExecInfo(env['KUBERNETES_EXEC_INFO']).cluster);
  const words = ['webapi-credential', 'login'];
  if (source.kind === 'file') words.push('--config', word(resolve(source.path)));
  else if (source.kind === 'document')
    words.push('--config-inline', "<the kubeconfig cluster entry's webAPIProviderConfig>");
  else
    words.push(
      '--config-inline',
      source.origin === '--config-inline' ? "<this command's --config-inline>" : `<the config in ${source.origin}>`,
    );
  for (const pair of flags.set ?? []) words.push('--set', word(pair));
  words.push('--cache');
  if (flags.cacheDir !== undefined && resolve(flags.cacheDir) !== defaultCacheDir(env, homedir))
    words.push('--cache-dir', word(resolve(flags.cacheDir)));
  return words.join(' ');
}

/** Whether a person can answer a prompt: client-go's spec.interactive, else (no exec info) terminals on stdin and stderr. */
export function isInteractive(deps: Pick<Deps, 'env' | 'login'>): boolean {
  const info = readExecInfo(deps.env['KUBERNETES_EXEC_INFO']);
  if (info.apiVersion !== undefined) return info.interactive === true;
  return deps.login?.terminal() === true;
}

/**
 * The credential of a login config when the cache has none: a device login when a person can
 * answer (or `login` asked for one), else exit 2 with what to do, and no request at all.
 */
export async function loginCredential(
  prepared: Prepared,
  flags: LoginFlags,
  deps: Deps,
  asking?: () => void,
): Promise<LoginResult> {
  // `login` asks for a login whatever the terminals, but not against client-go's word: an exec
  // entry that runs `login` under interactiveMode: Never (Argo CD) has nobody to answer either.
  const execInfo = readExecInfo(deps.env['KUBERNETES_EXEC_INFO']);
  if (flags.login && execInfo.apiVersion !== undefined && execInfo.interactive !== true) {
    throw new LoginError(
      'LOGIN_NEEDED',
      'login: client-go says the call is not interactive (interactiveMode: Never, as Argo CD sets), so nobody can answer the prompt; run webapi-credential login at a terminal, not from an exec entry',
      { framed: true },
    );
  }
  if (!flags.login && !isInteractive(deps)) {
    const why =
      execInfo.apiVersion !== undefined
        ? 'client-go says the call is not interactive'
        : 'stdin or stderr is no terminal';
    throw new LoginError(
      'LOGIN_NEEDED',
      `a login is needed and nobody can answer its prompt here (${why}); log in once at a terminal: kubectl get ns (with interactiveMode: IfAvailable and --cache in the exec entry), or ${loginCommandLine(flags, deps.env, deps.cache.homedir, (text) => deps.redactor.redact(text))}`,
      // Our own words; the command line is redacted where it is put in.
      { framed: true },
    );
  }
  const opener = deps.login?.opener?.(deps.env);
  const grant = pickGrant(prepared.config, {
    ...(flags.grant ? { grant: flags.grant } : {}),
    browser: opener !== undefined,
  });
  const browser = browserSession(deps, flags.noBrowser === true ? undefined : opener);
  // A person is asked from here on.
  asking?.();
  return credentialOf(
    await runGrant(grant, prepared, deps, browser),
    prepared,
    deps,
    grant.tokenGrant,
    grant.scopeField,
  );
}

/** The browser login's edges, when main.ts gave them: the listener, and the opener unless --no-browser. */
function browserSession(deps: Deps, opener: string[] | undefined): BrowserSession | undefined {
  const { listen, open } = deps.login ?? {};
  if (!listen || !open) return undefined;
  return { listen, open, ...(opener ? { opener } : {}) };
}

/** Runs one grant: its session renders and sends the config's requests, and ends them all on Ctrl-C. */
async function runGrant(
  grant: InteractiveGrant,
  prepared: Prepared,
  deps: Deps,
  browser: BrowserSession | undefined,
): Promise<Record<string, unknown>> {
  const { config } = prepared;
  // The login is bounded by the grant (a device code's life, at most 15 minutes), not by --timeout;
  // a message checked for secrets may take until then too.
  let end = deps.now() + MAX_LOGIN_MS;
  deps.redactor.setDeadline(() => deps.now() >= end + config.timeoutMs);
  const controller = new AbortController();
  const stop = deps.login?.onInterrupt(() => controller.abort()) ?? (() => {});
  const cancelled = () =>
    new LoginError('LOGIN_INTERRUPTED', 'the login was cancelled (Ctrl-C); nothing was cached', { framed: true });
  const interrupted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(cancelled()), { once: true });
  });
  interrupted.catch(() => {});
  const untilInterrupted = <T>(work: Promise<T>): Promise<T> => Promise.race([work, interrupted]);
  const session: GrantSession = {
    config,
    own: () => render(prepared, grant.request(config), grant.root, deps),
    token: async (fields) => withGrant(await render(prepared, config, requestRoot(), deps), fields),
    // The signal ends the request itself on Ctrl-C, so nothing in flight holds the process.
    post: (request, deadline, errorsAnswer, to) =>
      untilInterrupted(
        named(
          post(request, prepared, deadline, deps, errorsAnswer, {
            signal: controller.signal,
            ...(to.grant ? { grant: to.grant } : {}),
          }),
          to.endpoint,
        ),
      ),
    sleep: (ms, signal) =>
      untilInterrupted(
        (deps.login?.sleep ?? sleepWithoutSignal)(
          ms,
          signal ? AbortSignal.any([controller.signal, signal]) : controller.signal,
        ),
      ),
    checkpoint: () => {
      if (controller.signal.aborted) throw cancelled();
    },
    until: (ms) => void (end = ms),
    now: deps.now,
    say: (line, framed) => (deps.say ?? deps.warn)(line, framed),
    trace: deps.trace,
    secret: (value) => deps.redactor.add(value),
    redact: (text) => deps.redactor.redact(text),
    holdsSecret: (text) => deps.redactor.tryRedactFrame(text) !== text,
    randomBytes: deps.cache.randomBytes,
    ...(browser ? { browser } : {}),
  };
  try {
    return await grant.run(session);
  } finally {
    stop();
  }
}

/**
 * RFC 6749 §6: a new credential for a refresh token, without a person: the token endpoint's
 * answer is read as the device grant's is. The issuer's invalid_grant is a RefreshRefused (exit 3):
 * the caller (the cache) drops the refresh token and logs in anew when a person can answer. Sent
 * once (a single-use grant), with the whole time left to `deadline`.
 */
export async function refreshCredential(
  prepared: Prepared,
  refreshToken: string,
  deadline: number,
  deps: Deps,
): Promise<LoginResult> {
  deps.redactor.add(refreshToken);
  const request = refreshRequest(await render(prepared, prepared.config, requestRoot(), deps), refreshToken);
  // Observed as the main request (doctor's token API stage): the one request a refresh makes.
  const { status, document } = await named(
    post(request, prepared, deadline, deps, true, { observed: 'main', grant: 'refresh_token' }),
    'token',
  );
  let step: ReturnType<typeof readTokenAnswer>;
  try {
    step = readTokenAnswer(status, document, 'refresh_token', (text) => deps.redactor.redact(text));
  } catch (error) {
    throw error instanceof RequestError && isInvalidGrant(status, document) ? refused(error) : error;
  }
  if (step.kind !== 'token')
    throw new ResponseError('REFRESH_ANSWER', 'the token endpoint answered a refresh with a device grant error', {
      framed: true,
    });
  const result = credentialOf(step.document, prepared, deps, 'refresh_token');
  // Its real expiry kept, as a login's: the cache serves its margin window (through an outage,
  // while another refreshes). A server that rotates nothing keeps the old refresh token valid (RFC 6749 §6).
  return { ...result, refreshToken: result.refreshToken ?? refreshToken };
}

function sleepWithoutSignal(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The credential of a token answer: the id_token by default (tokenPath), expiry from the JWT, else
 * expires_in. When none can be taken, the error carries the answer's refresh token for the cache
 * to keep: the issuer may have rotated the old one away.
 */
function credentialOf(
  document: Record<string, unknown>,
  prepared: Prepared,
  deps: Deps,
  grant: TokenGrant,
  scopeField = 'login.deviceAuthorization.form.scope',
): LoginResult {
  for (const name of ['access_token', 'id_token', 'refresh_token']) {
    const value = document[name];
    if (typeof value === 'string') deps.redactor.add(value);
  }
  try {
    return credentialIn(document, prepared, deps, grant, scopeField);
  } catch (error) {
    const rotated = refreshTokenOf(document);
    throw rotated !== undefined && typeof error === 'object' && error !== null
      ? keepingRefreshToken(error, rotated)
      : error;
  }
}

function credentialIn(
  document: Record<string, unknown>,
  prepared: Prepared,
  deps: Deps,
  grant: TokenGrant,
  scopeField: string,
): LoginResult {
  const { config, paths } = prepared;
  if (config.paths.token === '$.id_token' && typeof document['id_token'] !== 'string') {
    if (grant === 'refresh_token') throw noIdTokenOnRefresh();
    throw new ResponseError(
      'NO_ID_TOKEN',
      `the token endpoint answered no id_token: add openid to ${scopeField}, or set tokenPath: $.access_token`,
      { framed: true },
    );
  }
  const lifetime = answerLifetimeMs(document);
  const settings =
    config.expiresInMs === undefined && lifetime !== undefined ? { ...config, expiresInMs: lifetime } : config;
  const extracting = deps.now();
  const { status, expiresAt } = extractCredential(document, settings, paths.query, deps.now(), (text) =>
    deps.redactor.redact(text),
  );
  deps.redactor.add(status.token);
  // doctor's credential stage: its real expiry, not "from the cache".
  deps.observe?.({ stage: 'extract', ms: deps.now() - extracting, status, expiresAt });
  const refreshToken = refreshTokenOf(document);
  deps.observe?.({ stage: 'login', grant, refreshToken: refreshToken !== undefined });
  // The plugin's frame; the time comes of the answer, redacted where it is put in.
  const expiry = status.expirationTimestamp;
  deps.trace(
    `logged in${expiry ? `, credential reported to expire at ${deps.redactor.redact(expiry)}` : ''}${refreshToken ? ', with a refresh token' : ''}`,
    true,
  );
  return { status, ...(expiresAt !== undefined ? { expiresAt } : {}), ...(refreshToken ? { refreshToken } : {}) };
}
