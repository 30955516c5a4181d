// The grants of a login, and the one place that picks which runs (SPEC "Interactive login"). A new
// grant is a file beside these and a line in GRANTS; prepare, render and the use case ask here.
import type { ProviderConfig, RequestConfig } from '../../config/schema.js';
import { UsageError } from '../../errors.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { deviceGrant } from './device.js';
import type { GrantName, InteractiveGrant } from './grant.js';

export type {
  BrowserSession,
  GrantName,
  TokenGrant,
  GrantSession,
  InteractiveGrant,
  Loopback,
  LoopbackAnswer,
  LoopbackRequest,
} from './grant.js';

/** Every interactive grant, in the order of preference: the browser first, the device grant for machines without one. */
const GRANTS: readonly InteractiveGrant[] = [authorizationCodeGrant, deviceGrant];

/** The grants this config configures. */
export function configuredGrants(config: ProviderConfig): InteractiveGrant[] {
  const { login } = config;
  return login ? GRANTS.filter((grant) => grant.configured(login)) : [];
}

/**
 * The grant a login runs: the one asked for (`login --grant`), else the browser where one can be
 * opened (a display, or $BROWSER), else the device grant (an SSH session without a display), else
 * whichever the config has.
 */
export function pickGrant(config: ProviderConfig, choice: { grant?: GrantName; browser: boolean }): InteractiveGrant {
  const configured = configuredGrants(config);
  if (choice.grant !== undefined) {
    const asked = configured.find((grant) => grant.name === choice.grant);
    if (!asked) {
      const block = GRANTS.find((grant) => grant.name === choice.grant)!.root.replace('webAPIProviderConfig.', '');
      throw new UsageError(
        'LOGIN_GRANT_NONE',
        `--grant ${choice.grant}: this config has no ${block}; it logs in with ${configured.map((grant) => grant.name).join(' or ')}`,
      );
    }
    return asked;
  }
  const preferred = configured.filter((grant) => choice.browser || grant.name !== 'browser');
  const picked = preferred[0] ?? configured[0];
  if (!picked) throw new Error('pickGrant: a login config without a grant');
  return picked;
}

/** The longest a login of this config may take (ms): what its lock tells the other terminals to wait. */
export function loginBoundMs(config: ProviderConfig): number {
  return Math.max(0, ...configuredGrants(config).map((grant) => grant.boundMs(config)));
}

/** login's own templates, checked when the config loads. */
export function loginTemplates(config: ProviderConfig): Array<[string, string]> {
  return configuredGrants(config).flatMap((grant) => grant.templates(config));
}

/** The grants' own requests, derived from the config's: rendered when the config loads. */
export function loginRequests(config: ProviderConfig): Array<{ grant: InteractiveGrant; settings: RequestConfig }> {
  return configuredGrants(config).map((grant) => ({ grant, settings: grant.request(config) }));
}
