// The claims of a JWT, read without verifying it: what doctor describes and what cluster-auth tells
// the cluster to trust. Only the payload is read; a token that is not three parts with a JSON object
// in the middle is no JWT here.

/** The payload of `token` when it is a JWT (three base64url parts, a JSON object in the middle). */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)
    : undefined;
}

/** A JWT's `aud` as a list: RFC 7519 lets it be one string or an array of them. */
export function audiences(claims: Record<string, unknown>): string[] {
  const aud = claims['aud'];
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((value): value is string => typeof value === 'string') : [];
}
