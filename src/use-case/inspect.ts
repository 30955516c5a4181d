// validate and render: what a config would send, checked and shown without sending it.
import type { Deps, RequestFlags } from './deps.js';
import { describeRequest, shownUrl } from '../request/build.js';
import { prepare } from './prepare.js';

/**
 * `allowUnsetEnv` (--allow-unset-env, for CI where the secrets are absent): an unset env variable
 * stands in as a placeholder, named on stderr. Without it validate refuses what get-token refuses,
 * with the same line.
 */
export async function validate(flags: RequestFlags, deps: Deps, allowUnsetEnv = false): Promise<void> {
  const { request, origin, config, steps, envNeeded, logins } = await prepare(
    { ...flags, withholdDecided: true, ...(allowUnsetEnv ? { unsetEnvAsPlaceholder: true } : {}) },
    deps,
  );
  if (envNeeded.length > 0) {
    const one = envNeeded.length === 1;
    deps.warn(
      `env ${envNeeded.join(', ')} ${one ? 'is' : 'are'} not set: checked with a stand-in (--allow-unset-env); the plugin needs ${one ? 'it' : 'them'} where it runs`,
    );
  }
  const first = steps
    .map((step, i) => `steps.${config.steps[i]!.name} ${step.method} ${shownUrl(step)}, then `)
    .join('');
  const grants = logins
    .flatMap(({ grant, request: own }) => (grant.summary ? [`${grant.summary(own, config)}\n`] : []))
    .join('');
  deps.stdout(
    deps.redactor.redact(`config from ${origin} is valid: ${first}${request.method} ${shownUrl(request)}\n${grants}`),
  );
}

export async function render(flags: RequestFlags, deps: Deps): Promise<void> {
  const { request, config, steps, logins } = await prepare({ ...flags, withholdDecided: true }, deps);
  if (logins.length > 0) {
    // A login: each grant's own request, then the token request with its fields (their values secret).
    deps.stdout(
      deps.redactor.redact(logins.map(({ grant, request: own }) => grant.describe(own, request, config)).join('\n')),
    );
    return;
  }
  if (steps.length === 0) {
    deps.stdout(deps.redactor.redact(describeRequest(request)));
    return;
  }
  // Every request in the order it is sent, each under the name of its place in the config.
  const parts = steps.map((step, i) => `# steps.${config.steps[i]!.name}\n${describeRequest(step)}`);
  parts.push(`# webAPIProviderConfig\n${describeRequest(request)}`);
  deps.stdout(deps.redactor.redact(parts.join('\n')));
}
