// What a config asks its issuer for, read from the requests it renders (no network): the `audience`
// (Auth0's parameter) or `resource` (RFC 8707) its token or device authorization request carries, and
// the client_id it names. cluster-auth tells the cluster to trust that `aud`; doctor says when the
// token came back without it.
import type { RenderedRequest } from '../../request/build.js';

/** A parameter's value, and the path of the field it came from when a secret reached or decided that field. */
export interface AskedValue {
  value: string;
  secretFrom?: string;
}

export interface Asked {
  /** `audience` and `resource` values, in the order the requests carry them. */
  audiences: Array<AskedValue & { parameter: 'audience' | 'resource' }>;
  clientId?: AskedValue;
}

type Carrier = Pick<RenderedRequest, 'url' | 'headers' | 'body' | 'secretAt' | 'shown'>;

/** The parameters of `requests` (the token request, and a login's device authorization request): query and form body. */
export function askedOf(requests: ReadonlyArray<Carrier | undefined>): Asked {
  const asked: Asked = { audiences: [] };
  for (const request of requests) {
    if (!request) continue;
    for (const { params, secretFrom } of parameters(request)) {
      const valueOf = (name: string, value: string): AskedValue => {
        const from = secretFrom(name);
        return { value, ...(from !== undefined ? { secretFrom: from } : {}) };
      };
      // One a secret reached or decided is kept whatever it holds, empty or asked for already: whether
      // it were dropped would tell what it holds (cluster-auth refuses it; doctor compares none of it).
      for (const parameter of ['audience', 'resource'] as const) {
        for (const value of params.getAll(parameter)) {
          const kept = valueOf(parameter, value);
          if (
            kept.secretFrom !== undefined ||
            (value !== '' && !asked.audiences.some((a) => a.secretFrom === undefined && a.value === value))
          )
            asked.audiences.push({ parameter, ...kept });
        }
      }
      const clientId = params.get('client_id');
      if (clientId !== null && asked.clientId === undefined) {
        const kept = valueOf('client_id', clientId);
        if (clientId !== '' || kept.secretFrom !== undefined) asked.clientId = kept;
      }
    }
  }
  return asked;
}

function parameters(
  request: Carrier,
): Array<{ params: URLSearchParams; secretFrom: (name: string) => string | undefined }> {
  const at = request.secretAt;
  // Read from the request as shown, where each value a secret reached or decided is [REDACTED]: which
  // parameters it carries is then the same whatever the secret holds. As sent, a secret that decided
  // whether the query or a raw form body holds an `audience` at all (or a secret read whose value holds
  // `&audience=`) made cluster-auth print a manifest for one secret and refuse for another.
  const { url, headers, body } = request.shown ?? request;
  const found: Array<{ params: URLSearchParams; secretFrom: (name: string) => string | undefined }> = [];
  if (URL.canParse(url))
    found.push({ params: new URL(url).searchParams, secretFrom: (name) => at?.query[name] ?? at?.url });
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  if (body !== undefined && /^application\/x-www-form-urlencoded/i.test(type))
    found.push({ params: new URLSearchParams(body), secretFrom: (name) => at?.form[name] ?? at?.body });
  return found;
}
