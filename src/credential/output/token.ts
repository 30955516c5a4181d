// The bare token and a newline, for `curl -H "Authorization: Bearer $(…)"` (SPEC "Output").
import type { OutputFormat } from './format.js';

export const bareToken: OutputFormat = {
  describes: 'the bare token',
  refuses: (config) =>
    config.paths.token ? undefined : '--output token needs a tokenPath; this config yields a client certificate',
  print: (status) => (status.token ? `${status.token}\n` : undefined),
};
