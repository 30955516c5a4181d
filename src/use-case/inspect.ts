// validate and render: what a config would send, checked and shown without sending it.
import { UsageError } from '../errors.js';
import type { Deps, RequestFlags } from './deps.js';
import { describeRequest, shownUrl } from '../request/build.js';
import { prepare } from './prepare.js';
import { DEVICE_ROOT, pollRequest } from '../login/device.js';

export async function validate(flags: RequestFlags, deps: Deps): Promise<void> {
  // Every env variable the config reads is named at once, with the way to check the rest without it.
  const { request, origin, config, steps, envNeeded } = await prepare({ ...flags, unsetEnvAsPlaceholder: true, withholdDecided: true }, deps);
  if (envNeeded.length > 0) {
    const one = envNeeded.length === 1;
    const dummies = envNeeded.map((name) => `${name}=dummy`).join(' ');
    throw new UsageError(
      'ENV_MISSING',
      `config from ${origin} reads env ${envNeeded.join(', ')}, not set here: the plugin needs ${one ? 'it' : 'them'} where it runs; validate sends nothing, so a dummy value checks the rest (${dummies} webapi-credential validate …)`,
    );
  }
  const first = steps.map((step, i) => `steps.${config.steps[i]!.name} ${step.method} ${shownUrl(step)}, then `).join('');
  deps.stdout(deps.redactor.redact(`config from ${origin} is valid: ${first}${request.method} ${shownUrl(request)}\n`));
}

export async function render(flags: RequestFlags, deps: Deps): Promise<void> {
  const { request, config, steps, login } = await prepare({ ...flags, withholdDecided: true }, deps);
  if (login) {
    // The device login: its authorization request, then the token request it polls (the code a secret).
    const poll = pollRequest(request, 'device_code');
    deps.stdout(deps.redactor.redact(`# ${DEVICE_ROOT}\n${describeRequest(login)}\n# webAPIProviderConfig (polled)\n${describeRequest(poll)}`));
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
