// The grants of a login, and the one place that picks which runs (SPEC "Interactive login"). A new
// grant is a file beside these and a line in GRANTS; prepare, render and the use case ask here.
import type { ProviderConfig, RequestConfig } from '../../config/schema.js';
import { deviceGrant } from './device.js';
import type { InteractiveGrant } from './grant.js';

export type { GrantName, GrantSession, InteractiveGrant } from './grant.js';

/** Every interactive grant, in the order of preference. */
const GRANTS: readonly InteractiveGrant[] = [deviceGrant];

/** The grants this config configures. */
export function configuredGrants(config: ProviderConfig): InteractiveGrant[] {
  const { login } = config;
  return login ? GRANTS.filter((grant) => grant.configured(login)) : [];
}

/** The grant a login runs. */
export function pickGrant(config: ProviderConfig): InteractiveGrant {
  const [first] = configuredGrants(config);
  if (!first) throw new Error('pickGrant: a login config without a grant');
  return first;
}

/** login's own templates, checked when the config loads. */
export function loginTemplates(config: ProviderConfig): Array<[string, string]> {
  return configuredGrants(config).flatMap((grant) => grant.templates(config));
}

/** The grants' own requests, derived from the config's: rendered when the config loads. */
export function loginRequests(config: ProviderConfig): Array<{ grant: InteractiveGrant; settings: RequestConfig }> {
  return configuredGrants(config).map((grant) => ({ grant, settings: grant.request(config) }));
}
