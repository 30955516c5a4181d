// How a login's requests go out (login.ts): rendered from the config, sent (a single-use grant's
// once), observed for doctor, their answer read as JSON, a failure named for its endpoint.
import { RequestError, type CredentialError } from '../errors.js';
import type { RequestConfig } from '../config/schema.js';
import { parseResponseBody } from '../credential/extract.js';
import { asShown, describeRequest, renderRequest, type RenderedRequest } from '../request/build.js';
import { SINGLE_USE_GRANTS } from '../request/retry.js';
import { atEndpoint, type Endpoint } from '../login/endpoint.js';
import type { HttpObservation } from '../request/observe-http.js';
import type { Deps } from './deps.js';
import type { Prepared } from './prepare.js';
import { sendOptions } from './send-options.js';

/** One request of a login's config (`root` names its fields), rendered as get-token renders its own. */
export async function render(
  prepared: Prepared,
  settings: RequestConfig,
  root: string,
  deps: Deps,
): Promise<RenderedRequest> {
  return renderRequest(settings, prepared.renderer, deps.version, prepared.readFile, deps.redactor, root);
}

/** A request's failure said of the endpoint it went to (login/endpoint.ts), not of "the token API". */
export function named<T>(sending: Promise<T>, endpoint: Endpoint): Promise<T> {
  return sending.catch((error: unknown) => {
    throw atEndpoint(error, endpoint);
  });
}

/**
 * Sends one request of the login; with `errorsAnswer`, an OAuth error answer (400, 401) is returned
 * to be read. The request of a single-use `grant` (request/retry.ts) is never sent twice; `observed`
 * names it to doctor; `signal` ends it on Ctrl-C.
 */
export async function post(
  request: RenderedRequest,
  prepared: Prepared,
  deadline: number,
  deps: Deps,
  errorsAnswer: boolean,
  { observed, grant, signal }: { observed?: string; grant?: string; signal?: AbortSignal } = {},
): Promise<{ status: number; document: unknown }> {
  const { config } = prepared;
  deps.trace(`request:\n${describeRequest(request)}`, true);
  const exchanges: HttpObservation[] = [];
  const started = deps.now();
  const watch = observed !== undefined ? deps.observe : undefined;
  const sent = (ok: boolean) => watch?.({ stage: 'send', label: observed!, ms: deps.now() - started, ok, exchanges });
  const response = await deps
    .send(request, {
      ...sendOptions(config, deadline, deps),
      ...(watch ? { observe: (exchange: HttpObservation) => exchanges.push(asShown(exchange, request)) } : {}),
      ...(errorsAnswer ? { answerStatuses: [400, 401] } : {}),
      ...(grant !== undefined && SINGLE_USE_GRANTS.includes(grant) ? { singleUse: true } : {}),
      ...(signal ? { signal } : {}),
    })
    .then(
      (answer) => {
        sent(answer.status >= 200 && answer.status <= 299);
        return answer;
      },
      (error: unknown) => {
        sent(false);
        throw error;
      },
    );
  try {
    return {
      status: response.status,
      document: parseResponseBody(response.body, response.contentType, response.bytes, (text) =>
        deps.redactor.redact(text),
      ),
    };
  } catch (error) {
    if (response.status >= 200 && response.status <= 299) throw error;
    // An error answer that is no JSON: the request failed, as any other non-2xx.
    throw new RequestError(
      'HTTP_STATUS',
      `the token endpoint answered ${response.status}: ${(error as CredentialError).message}`,
      { status: response.status, framed: (error as CredentialError).framed },
    );
  }
}
