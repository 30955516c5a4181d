// RFC 6749 §4.1, the authorization code grant, with PKCE (RFC 7636, S256) on a loopback redirect
// (RFC 8252): the browser is sent to the authorization endpoint, the code comes back to a listener
// on 127.0.0.1/::1 that takes one callback with the right state and Host, and the code is exchanged
// at the config's token request. The callback's answer is a pure function (answerCallback); the
// listener and the browser are the session's.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ResponseError, UsageError } from '../../errors.js';
import type { AuthorizationCodeConfig, ProviderConfig, RequestConfig } from '../../config/schema.js';
import { describeRequest, type RenderedRequest } from '../../request/build.js';
import { LoginError, quoted, readTokenAnswer, withGrant } from '../token.js';
import type { GrantSession, InteractiveGrant, Loopback, LoopbackAnswer, LoopbackRequest } from './grant.js';

export const CODE_ROOT = 'webAPIProviderConfig.login.authorizationCode';
const CODE_GRANT = 'authorization_code';
/** A code or an error longer than this is no answer of an authorization server. */
const MAX_PARAMETER = 4096;

/**
 * The authorization request as the config gives it: its URL and query, with the client's id (the
 * token request's form.client_id, else the query's) and the config's TLS. Sent by the browser, not
 * by us: no headers, no body. The flow's own parameters are added when it runs.
 */
function authorizationRequestConfig(config: ProviderConfig): RequestConfig {
  const code = config.login!.authorizationCode!;
  const clientId = config.body.kind === 'form' ? config.body.fields['client_id'] : undefined;
  return {
    ...config,
    method: 'GET',
    url: code.url,
    headers: {},
    query: { ...(clientId ? { client_id: clientId } : {}), ...code.query },
    body: { kind: 'none' },
  };
}

function codeTemplates(config: ProviderConfig): Array<[string, string]> {
  const code = config.login?.authorizationCode;
  if (!code) return [];
  const fields: Array<[string, string]> = [[`${CODE_ROOT}.url`, code.url]];
  for (const [name, templates] of Object.entries(code.query)) {
    templates.forEach((template, i) =>
      fields.push([`${CODE_ROOT}.query.${name}${templates.length > 1 ? `[${i}]` : ''}`, template]),
    );
  }
  return fields;
}

/** The authorization URL: the config's, then the flow's parameters (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC nonce). */
export function authorizationUrl(
  configured: string,
  flow: { redirectUri: string; state: string; nonce: string; challenge: string },
): string {
  const added = new URLSearchParams({
    response_type: 'code',
    redirect_uri: flow.redirectUri,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: flow.challenge,
    code_challenge_method: 'S256',
  }).toString();
  return `${configured}${configured.includes('?') ? '&' : '?'}${added}`;
}

/**
 * The authorization URL as render and validate show it: redirect_uri on the first port (what the
 * identity provider must have registered); the values made when the flow runs, state and nonce
 * secrets among them, as their names.
 */
function shownAuthorizationUrl(own: RenderedRequest, config: ProviderConfig): string {
  const code = config.login!.authorizationCode!;
  const redirectUri = `http://${code.redirectHost}:${code.redirectPorts[0]}${code.redirectPath}`;
  return authorizationUrl((own.shown ?? own).url, {
    redirectUri,
    state: '[state]',
    nonce: '[nonce]',
    challenge: '[code_challenge]',
  }).replace(/%5B(state|nonce|code_challenge)%5D/g, '[$1]');
}

/**
 * The URL goes to the browser's command line (any local user reads it), its history and the IdP's
 * logs: nothing a secret gave may be in it. The one check of it, when the config loads (validate,
 * render, every command) and when the login runs.
 */
function refuseSecretUrl(own: RenderedRequest, holdsSecret: (text: string) => boolean): void {
  // Known from the renderer's taint (a letter a comparison chose is no text the redactor looks for),
  // and from the values read for a path shown by rule that a secret became elsewhere (never from the
  // words a secret decided: the refusal itself would say which way it went).
  const at = own.secretAt;
  if (at?.url !== undefined || Object.keys(at?.query ?? {}).length > 0 || holdsSecret(own.url)) {
    throw new UsageError(
      'LOGIN_URL_SECRET',
      "login.authorizationCode puts a secret in the browser's URL, where the process list, the browser's history and the identity provider's logs show it: give its url and query as plain text (a client secret belongs in the token request's form)",
      // Our own words: not searched for a word a secret decided (its presence would say which).
      { framed: true },
    );
  }
}

/** What the listener expects of the one callback it takes. */
export interface Expected {
  /** `localhost:8000`: the Host a browser sends for redirect_uri; any other is DNS rebinding. */
  host: string;
  path: string;
  state: string;
}

export type Callback =
  { kind: 'code'; code: string; iss?: string } | { kind: 'error'; error: string; description?: string };

const PAGE = (title: string, text: string) =>
  `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head><body><p>${text}</p></body></html>\n`;
const NOT_FOUND: LoopbackAnswer = { status: 404, body: PAGE('Not found', 'Not found.') };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sameSecret(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * One request to the listener: the callback (a browser's navigation to the redirect path, the Host of
 * redirect_uri, the state this login sent, and a code or an error) is taken and answered with a small static page
 * that shows neither the code nor the state; everything else is 404 and leaves the login waiting.
 */
export function answerCallback(
  request: LoopbackRequest,
  expected: Expected,
  redact: (text: string) => string = (text) => text,
): { answer: LoopbackAnswer; callback?: Callback } {
  if (request.method !== 'GET' || request.host?.toLowerCase() !== expected.host.toLowerCase())
    return { answer: NOT_FOUND };
  // The redirect is a navigation; a page's fetch() or <img> is not, whatever it carries.
  if (request.fetchMode !== undefined && request.fetchMode !== 'navigate') return { answer: NOT_FOUND };
  if (request.target.length > 4 * MAX_PARAMETER) return { answer: NOT_FOUND };
  const at = request.target.indexOf('?');
  const path = at === -1 ? request.target : request.target.slice(0, at);
  if (path !== (expected.path || '/')) return { answer: NOT_FOUND };
  const params = new URLSearchParams(at === -1 ? '' : request.target.slice(at + 1));
  const one = (name: string) => {
    const values = params.getAll(name);
    return values.length === 1 && values[0] !== '' && values[0]!.length <= MAX_PARAMETER ? values[0] : undefined;
  };
  const state = one('state');
  if (state === undefined || !sameSecret(state, expected.state)) return { answer: NOT_FOUND };
  const error = one('error');
  if (error !== undefined) {
    const description = one('error_description');
    // Redacted before it is cut (a cut through an echoed secret leaves a piece no redactor knows).
    const said = redact(`${error}${description !== undefined ? `: ${description}` : ''}`).slice(0, 200);
    return {
      answer: {
        status: 200,
        body: PAGE(
          'Login failed',
          `The login was not completed (${escapeHtml(said)}). You can close this tab; the terminal says what to do.`,
        ),
      },
      callback: { kind: 'error', error, ...(description !== undefined ? { description } : {}) },
    };
  }
  const code = one('code');
  if (code === undefined) return { answer: NOT_FOUND };
  const iss = one('iss');
  return {
    answer: { status: 200, body: PAGE('Logged in', 'Logged in. You can close this tab and go back to the terminal.') },
    callback: { kind: 'code', code, ...(iss !== undefined ? { iss } : {}) },
  };
}

/** The first free port of the list, listening; all taken is exit 2 naming them. */
async function listenFirstFree(
  session: GrantSession,
  code: AuthorizationCodeConfig,
  handler: (port: number) => (request: LoopbackRequest) => LoopbackAnswer,
): Promise<{ loopback: Loopback; port: number }> {
  const listen = session.browser!.listen;
  for (const port of code.redirectPorts) {
    try {
      return { loopback: await listen(port, handler(port)), port };
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code;
      if (why !== 'EADDRINUSE' && why !== 'EACCES') throw error;
      session.trace(`port ${port} of the loopback address is taken (${why}): trying the next`);
    }
  }
  throw new LoginError(
    'LOGIN_PORTS_TAKEN',
    `every port of login.authorizationCode.redirectPorts is taken on the loopback address (${code.redirectPorts.join(', ')}); free one, or add a port the identity provider accepts in its redirect URIs`,
    { framed: true },
  );
}

/** The nonce the id_token must carry (OIDC Core §3.1.3.7): a token answer for another login is refused. */
function checkNonce(document: Record<string, unknown>, nonce: string): void {
  const idToken = document['id_token'];
  if (typeof idToken !== 'string') return;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    claims = undefined;
  }
  const got = typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>)['nonce'] : undefined;
  if (typeof got !== 'string' || !sameSecret(got, nonce)) {
    throw new ResponseError(
      'LOGIN_NONCE',
      "the token endpoint answered an id_token without this login's nonce: it was not issued for this login; run the command again",
      { framed: true },
    );
  }
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m >= 1 ? `${m} minute${m === 1 ? '' : 's'}` : `${Math.round(ms / 1000)} seconds`;
}

/** The browser login: the listener first, then the browser, then one callback, then the code exchanged. */
export const authorizationCodeGrant: InteractiveGrant = {
  name: 'browser',
  root: CODE_ROOT,
  tokenGrant: 'authorization_code',
  // login.timeout for the browser, then the code's exchange.
  boundMs: (config) => config.login!.timeoutMs + config.timeoutMs,
  scopeField: 'login.authorizationCode.query.scope',
  configured: (login) => login.authorizationCode !== undefined,
  request: authorizationRequestConfig,
  templates: codeTemplates,
  check: refuseSecretUrl,
  describe: (own, token, config) => {
    const exchange = withGrant(token, { grant_type: CODE_GRANT, code: '', redirect_uri: '', code_verifier: '' });
    return `# ${CODE_ROOT} (opened in the browser)\nGET ${shownAuthorizationUrl(own, config)}\n\n# webAPIProviderConfig (the code exchanged)\n${describeRequest(exchange)}`;
  },
  summary: (own, config) => `browser login: GET ${shownAuthorizationUrl(own, config)}`,
  run: async (session) => {
    const { config } = session;
    const login = config.login!;
    const code = login.authorizationCode!;
    const end = session.now() + login.timeoutMs;
    session.until(end);
    if (!session.browser)
      throw new LoginError(
        'LOGIN_NO_BROWSER',
        'a browser login needs a loopback listener, which this run cannot open',
        { framed: true },
      );
    const own = await session.own();
    session.checkpoint();
    // Rendered anew (the steps may have run): refused before anything listens or opens.
    refuseSecretUrl(own, session.holdsSecret);
    const random = () => Buffer.from(session.randomBytes()).toString('base64url');
    const [state, nonce, verifier] = [random(), random(), random()];
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    session.secret(verifier);
    let taken: (callback: Callback) => void = () => {};
    const callback = new Promise<Callback>((resolve) => (taken = resolve));
    let done = false;
    const handler = (port: number) => (request: LoopbackRequest) => {
      if (done) return NOT_FOUND;
      const { answer, callback: got } = answerCallback(
        request,
        { host: `${code.redirectHost}:${port}`, path: code.redirectPath, state },
        session.redact,
      );
      if (got) {
        done = true;
        taken(got);
      }
      return answer;
    };
    const { loopback, port } = await listenFirstFree(session, code, handler);
    const waiting = new AbortController();
    try {
      const redirectUri = `http://${code.redirectHost}:${port}${code.redirectPath}`;
      const url = authorizationUrl(own.url, { redirectUri, state, nonce, challenge });
      const { opener, open } = session.browser;
      let opened = false;
      if (opener) {
        try {
          await open(opener, url);
          opened = true;
        } catch (error) {
          // The opener is this machine's ($BROWSER), the code Node's: the plugin's frame.
          session.say(
            `could not open a browser with ${opener[0]} (${(error as NodeJS.ErrnoException).code ?? 'failed'}): open the address below yourself`,
            true,
          );
        }
      }
      // The URL is for the person: shown before its state and nonce become secrets, which they are for every later line.
      // The plugin's frame: the URL redacted in full where it is put in.
      session.say(`to log in, open ${session.redact(url)}`, true);
      session.say(
        `${opened ? 'in the browser that opened, ' : ''}within ${minutes(login.timeoutMs)} (login.timeout); Ctrl-C cancels`,
        true,
      );
      session.secret(state);
      session.secret(nonce);
      const got = await Promise.race([
        callback,
        session.sleep(Math.max(0, end - session.now()), waiting.signal).then(() => undefined),
      ]);
      session.checkpoint();
      if (got === undefined) {
        throw new LoginError(
          'LOGIN_TIMEOUT',
          `the browser did not come back within ${minutes(login.timeoutMs)} (login.timeout); run the command again to log in anew`,
          { framed: true },
        );
      }
      if (got.kind === 'error') {
        if (got.error === 'access_denied')
          throw new LoginError(
            'LOGIN_DENIED',
            'the login was denied at the identity provider; run the command again to log in anew',
            { framed: true },
          );
        const description =
          got.description !== undefined ? ` (${quoted(session.redact(got.description).slice(0, 200))})` : '';
        throw new LoginError(
          'LOGIN_REFUSED',
          `the authorization endpoint answered ${quoted(session.redact(got.error).slice(0, 200))}${description}; check login.authorizationCode and the client's registration`,
          { framed: true },
        );
      }
      session.secret(got.code);
      // RFC 9207 §2.4: the config names the issuer when it says it sends iss; then a missing one is refused too.
      if (code.issuer !== undefined && got.iss === undefined) {
        throw new LoginError(
          'LOGIN_ISSUER',
          `the browser came back without the iss of ${code.issuer} (RFC 9207), which the issuer says it sends: nothing was exchanged`,
          { framed: true },
        );
      }
      if (code.issuer !== undefined && got.iss !== code.issuer) {
        throw new LoginError(
          'LOGIN_ISSUER',
          `the browser came back from the issuer ${quoted(session.redact(got.iss ?? '').slice(0, 200))}, not ${code.issuer} (RFC 9207): nothing was exchanged`,
          { framed: true },
        );
      }
      // The code is single-use: one exchange.
      const exchange = await session.token({
        grant_type: CODE_GRANT,
        code: got.code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      });
      session.checkpoint();
      const { status, document } = await session.post(exchange, session.now() + config.timeoutMs, true, {
        endpoint: 'token',
        grant: CODE_GRANT,
      });
      const step = readTokenAnswer(status, document, CODE_GRANT, session.redact);
      if (step.kind !== 'token')
        throw new ResponseError(
          'LOGIN_ANSWER',
          'the token endpoint answered the authorization code with a device grant error',
          { framed: true },
        );
      checkNonce(step.document, nonce);
      return step.document;
    } finally {
      waiting.abort();
      await loopback.close();
    }
  },
};
