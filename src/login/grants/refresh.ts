// RFC 6749 §6, the refresh grant: the config's token request with the refresh token, sent without a
// person (use-case/login.ts refreshCredential); its answer is read as the other grants' are.
import type { RenderedRequest } from '../../request/build.js';
import { withGrant } from '../token.js';

/** The refresh request (RFC 6749 §6) against the token endpoint. */
export function refreshRequest(tokenRequest: RenderedRequest, refreshToken: string): RenderedRequest {
  return withGrant(tokenRequest, { grant_type: 'refresh_token', refresh_token: refreshToken });
}
