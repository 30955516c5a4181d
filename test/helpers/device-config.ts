// Configs for a device login and the exec info that says whether a person is there: for the real
// oidc-provider (test/helpers/device-provider.ts) and for a token API stand-in (token-api.ts). Light on
// purpose: the unit tier takes these without loading oidc-provider.

/** The public client of the device login, on the device provider and in every config here. */
export const CLIENT_ID = 'kubectl';

/**
 * A device login config: the token endpoint `${base}/token`, the device authorization endpoint
 * (oidc-provider's `${base}/device/auth` unless `deviceUrl`), the test CA trusted. `provider` joins
 * the provider's fields (after the defaults: it may replace `form`), `login` the login's.
 */
export function deviceConfig(
  base: string,
  caFile: string,
  options: {
    deviceUrl?: string;
    scope?: string;
    provider?: Record<string, unknown>;
    login?: Record<string, unknown>;
  } = {},
): string {
  const { deviceUrl = `${base}/device/auth`, scope = 'openid offline_access', provider = {}, login = {} } = options;
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${base}/token`,
      form: { client_id: CLIENT_ID },
      tls: { caFile },
      ...provider,
      login: { deviceAuthorization: { url: deviceUrl, form: { scope } }, ...login },
    },
  });
}

/** A device login config against a token API stand-in (test/helpers/token-api.ts) on `port`: /token and /device, no retries. */
export function standInDeviceConfig(port: number, caFile: string, provider: Record<string, unknown> = {}): string {
  const base = `https://localhost:${port}`;
  return deviceConfig(base, caFile, {
    deviceUrl: `${base}/device`,
    scope: 'openid',
    provider: { retry: { limit: 0 }, ...provider },
  });
}

/** KUBERNETES_EXEC_INFO as client-go sets it, saying whether a person is at the terminal. */
export function execInfoEnv(interactive: boolean): { KUBERNETES_EXEC_INFO: string } {
  return {
    KUBERNETES_EXEC_INFO: JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive },
    }),
  };
}
