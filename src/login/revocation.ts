// RFC 7009 token revocation, as pure pieces: `logout` revokes the login's refresh token at
// login.revocation.url with the client's authentication of the token request, and reads the answer.
import { RequestError, terminalSafe } from '../errors.js';
import type { ProviderConfig, RequestConfig } from '../config/schema.js';
import type { RenderedRequest } from '../request/build.js';
import { withGrant } from './token.js';

export const REVOCATION_ROOT = 'webAPIProviderConfig.login.revocation';

/** The revocation request before the token: the main request's headers and form (the client's authentication, RFC 7009 §2.1) at `url`. */
export function revocationRequestConfig(config: ProviderConfig, url: string): RequestConfig {
  const own = config.body.kind === 'form' ? config.body.fields : {};
  return { ...config, url, query: {}, body: { kind: 'form', fields: own } };
}

/** The request with the token and its hint added to the form (the token shown as its name). */
export function revocationRequest(request: RenderedRequest, refreshToken: string): RenderedRequest {
  return withGrant(request, { token: refreshToken, token_type_hint: 'refresh_token' });
}

/**
 * RFC 7009 §2.2: 200 means revoked (also for a token the issuer no longer knew). An error answer
 * (§2.2.1: invalid_client, unsupported_token_type) is exit 3 naming its error, redacted.
 */
export function readRevocationAnswer(status: number, document: unknown, redact: (text: string) => string): void {
  if (status >= 200 && status <= 299) return;
  const answer =
    typeof document === 'object' && document !== null && !Array.isArray(document)
      ? (document as Record<string, unknown>)
      : undefined;
  const error =
    typeof answer?.['error'] === 'string'
      ? terminalSafe(JSON.stringify(redact(answer['error']).slice(0, 200)))
      : undefined;
  throw new RequestError(
    'REVOCATION_REFUSED',
    `the revocation endpoint answered ${status}${error !== undefined ? `: ${error}` : ''}`,
    { status },
  );
}
