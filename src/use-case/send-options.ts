// The HTTP client's options for one request a use case sends (a step, the token request, a login's
// request, a revocation): the request's own settings, the call's deadline and the process's edges,
// written once. Each caller adds what is its own (doctor's observer, a grant's single use, Ctrl-C).
import type { RequestConfig } from '../config/schema.js';
import type { HttpOptions } from '../request/http.js';
import type { Deps } from './deps.js';

export function sendOptions(
  settings: RequestConfig,
  deadline: number,
  deps: Deps,
  redact: (text: string) => string = (text) => deps.redactor.redact(text),
): HttpOptions {
  return {
    timeoutMs: settings.timeoutMs,
    retryLimit: settings.retryLimit,
    maxResponseBytes: settings.maxResponseBytes,
    allowInsecureHTTP: settings.allowInsecureHTTP,
    deadline,
    templatedHeaders: Object.keys(settings.headers),
    env: deps.env,
    now: deps.now,
    random: deps.random,
    // The client's lines are the plugin's frame, their echoes redacted where put in (HttpOptions.log).
    log: (line) => deps.trace(line, true),
    redact,
    secret: (value) => deps.redactor.add(value),
  };
}
