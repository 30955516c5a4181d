// The output formats (--output), by name: a new one is a file beside this one and a line below.
// Light and pure: the fast path prints a cached credential through it.
import { UsageError } from '../../errors.js';
import type { ProviderConfig } from '../../config/schema.js';
import type { CredentialStatus } from '../exec-credential.js';
import type { OutputFormat } from './format.js';
import { execCredential } from './exec-credential.js';
import { bareToken } from './token.js';

const FORMATS = {
  'exec-credential': execCredential,
  token: bareToken,
} as const satisfies Record<string, OutputFormat>;

export type OutputName = keyof typeof FORMATS;

/** The names, for --output's choices. */
export const OUTPUTS = Object.keys(FORMATS) as OutputName[];
export const DEFAULT_OUTPUT: OutputName = 'exec-credential';

/** --output's help: what each format prints. */
export const OUTPUTS_DESCRIBED = `what to print: ${OUTPUTS.map((name) => FORMATS[name].describes).join(', or ')}`;

/** The name a parsed flag gives, else the default. */
export function outputNamed(value: string | undefined): OutputName {
  return OUTPUTS.find((name) => name === value) ?? DEFAULT_OUTPUT;
}

/** Exit 2 before anything is sent when this config's credential cannot be printed in `name`. */
export function checkOutput(name: OutputName, config: Pick<ProviderConfig, 'paths'>): void {
  const format: OutputFormat = FORMATS[name];
  const refusal = format.refuses?.(config);
  if (refusal !== undefined) throw new UsageError(`OUTPUT_${name.toUpperCase().replaceAll('-', '_')}`, refusal);
}

/** The credential as `name` prints it, or undefined when it cannot (the fast path then steps aside). */
export function formatOutput(name: OutputName, apiVersion: string, status: CredentialStatus): string | undefined {
  return FORMATS[name].print(status, apiVersion);
}
