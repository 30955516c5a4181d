// The problems a rendering collects, and their words: what was missing and how to give it, and the
// one message for every failure that a secret may have chosen.

/** The most problems one message names. */
export const PROBLEMS_SHOWN = 100;

export interface Problem {
  code: string;
  text: string;
  /** The names it found missing: a second field missing the same ones says nothing new. */
  missing?: string;
}

/** The one message for every failure that a secret may have chosen (evaluateChecked). */
export const DECIDED_FAILURE =
  'a template that compares or looks up by a value from env, file() or steps fails for the value it holds; which template and why is not said, as that would tell the secret: give every branch and key a value that each use accepts';

/** A problem with its field and expression already in the message. */
export class Located extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly missing: string[] = [],
  ) {
    super(message);
  }
}

export function missingText(missing: string[], reason: string): string {
  const unique = [...new Set(missing)];
  // What was missing says more than where it ended up (a helper's argument, a + operand).
  if (unique.length === 0) return reason;
  return `${unique.join(', ')} ${unique.length > 1 ? 'are not set' : 'is not set'}${hint(unique)}`;
}

function hint(missing: string[]): string {
  const hints: string[] = [];
  const vars = missing.filter((name) => name.startsWith('vars.'));
  const env = missing.filter((name) => name.startsWith('env'));
  if (vars.length > 0) hints.push(`pass ${vars.map((name) => `--set ${name.slice(5)}=…`).join(' ')}, or give a default: ${vars[0]} ?? "…"`);
  if (env.length > 0) {
    // "it" or "them" only when the env names are all that is missing; else name them.
    const which = env.length === missing.length ? (env.length > 1 ? 'them' : 'it') : env.join(', ');
    // Never `env.X ?? "…"`: an env value is a secret, and a default would put one in the config.
    hints.push(`set ${which} in the environment or the kubeconfig exec env`);
  }
  if (missing.includes('cluster')) hints.push('KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry');
  return hints.length > 0 ? ` (${hints.join('; ')})` : '';
}

/** An expression as a message quotes it: a let of a megabyte is not repeated in full. */
export function shorten(source: string): string {
  return source.length > 200 ? `${source.slice(0, 200)}…` : source;
}
