// The pair the kubectl end-to-end tests stand up: a Keycloak stand-in that issues tokens to the
// client `kubectl` of realm `platform` for `secret`, and an API server stand-in that accepts exactly
// the tokens it issued. Started before the file's tests, closed after them.
import { afterAll, beforeAll } from 'vitest';
import { startApiServer, type ApiServer } from './apiserver.js';
import { keycloak } from './provider-apis.js';
import { startTokenApi, type TokenApi } from './token-api.js';

export interface KeycloakCluster {
  readonly tokenApi: TokenApi;
  readonly apiserver: ApiServer;
  /** Every token the stand-in issued, in order. */
  readonly issued: string[];
}

export function keycloakCluster(secret: string): KeycloakCluster {
  const issued: string[] = [];
  let tokenApi: TokenApi | undefined;
  let apiserver: ApiServer | undefined;
  beforeAll(async () => {
    tokenApi = await startTokenApi(keycloak({ realm: 'platform', clientId: 'kubectl', clientSecret: secret }, issued));
    apiserver = await startApiServer({
      accepts: (token) => (issued.includes(token) ? 'service-account-kubectl' : undefined),
    });
  });
  afterAll(async () => {
    await Promise.all([tokenApi?.close(), apiserver?.close()]);
  });
  return {
    get tokenApi() {
      return tokenApi!;
    },
    get apiserver() {
      return apiserver!;
    },
    issued,
  };
}
