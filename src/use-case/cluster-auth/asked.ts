// What a config asks its issuer for, read from the requests it renders (no network): the `audience`
// (Auth0's parameter) or `resource` (RFC 8707) its token or device authorization request carries, and
// the client_id it names. cluster-auth tells the cluster to trust that `aud`; doctor says when the
// token came back without it.
import type { RenderedRequest } from '../../request/build.js';

export interface Asked {
  /** `audience` and `resource` values, in the order the requests carry them. */
  audiences: Array<{ parameter: 'audience' | 'resource'; value: string }>;
  clientId?: string;
}

/** The parameters of `requests` (the token request, and a login's device authorization request): query and form body. */
export function askedOf(requests: ReadonlyArray<Pick<RenderedRequest, 'url' | 'headers' | 'body'> | undefined>): Asked {
  const asked: Asked = { audiences: [] };
  for (const request of requests) {
    if (!request) continue;
    for (const params of parameters(request)) {
      for (const parameter of ['audience', 'resource'] as const) {
        for (const value of params.getAll(parameter)) if (value !== '' && !asked.audiences.some((a) => a.value === value)) asked.audiences.push({ parameter, value });
      }
      const clientId = params.get('client_id');
      if (clientId && asked.clientId === undefined) asked.clientId = clientId;
    }
  }
  return asked;
}

function parameters(request: Pick<RenderedRequest, 'url' | 'headers' | 'body'>): URLSearchParams[] {
  const found: URLSearchParams[] = [];
  if (URL.canParse(request.url)) found.push(new URL(request.url).searchParams);
  const type = Object.entries(request.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  if (request.body !== undefined && /^application\/x-www-form-urlencoded/i.test(type)) found.push(new URLSearchParams(request.body));
  return found;
}
