// A login talks to several endpoints of one issuer (device authorization, authorization, token,
// revocation); the HTTP client's messages say "the token API", which for a login would send a
// person to the wrong one. The failure is said again naming the endpoint, with what a 401 of the
// device authorization endpoint most often means.
import { RequestError, ResponseError } from '../errors.js';

export type Endpoint = 'device authorization' | 'authorization' | 'token' | 'revocation';

/**
 * `error` with the endpoint named (`the device authorization endpoint answered 401 …`): same class,
 * code, status and Retry-After; anything that is not a request's or an answer's failure as it is.
 */
export function atEndpoint(error: unknown, endpoint: Endpoint): unknown {
  if (!(error instanceof RequestError) && !(error instanceof ResponseError)) return error;
  const name = `the ${endpoint} endpoint`;
  const said = error.message.startsWith(name)
    ? error.message
    : error.message.includes('the token API')
      ? error.message.replace('the token API', name)
      : `${name}: ${error.message}`;
  const hint =
    endpoint === 'device authorization' && error instanceof RequestError && error.status === 401
      ? `; ${DEVICE_401_HINT}`
      : '';
  // The endpoint's name and the hint are fixed words: a framed message stays the frame.
  const { framed } = error;
  if (error instanceof ResponseError) return new ResponseError(error.code, `${said}${hint}`, { cause: error, framed });
  return new RequestError(error.code, `${said}${hint}`, {
    cause: error,
    framed,
    status: error.status,
    retryAfterMs: error.retryAfterMs,
  });
}

/** RFC 8628 §3.1: the endpoint authenticates the client as the token endpoint does; most issuers allow the grant per client. */
const DEVICE_401_HINT =
  "the issuer does not take this client there: make it a public client (no secret) with the device authorization grant enabled, or give the token request the client's authentication (form client_secret, an Authorization header)";
