// The problems a rendering collects, and their words: what was missing and how to give it, and the
// one message for every failure that a secret may have chosen.
import { UsageError } from '../errors.js';
import { QuietError } from './evaluate-value.js';
import { TemplateSyntaxError } from './parse.js';

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
  if (vars.length > 0)
    hints.push(
      `pass ${vars.map((name) => `--set ${name.slice(5)}=…`).join(' ')}, or give a default: ${vars[0]} ?? "…"`,
    );
  if (env.length > 0) {
    // "it" or "them" only when the env names are all that is missing; else name them.
    const which = env.length === missing.length ? (env.length > 1 ? 'them' : 'it') : env.join(', ');
    // Never `env.X ?? "…"`: an env value is a secret, and a default would put one in the config.
    hints.push(`set ${which} in the environment or the kubeconfig exec env`);
  }
  if (missing.includes('cluster'))
    hints.push('KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry');
  return hints.length > 0 ? ` (${hints.join('; ')})` : '';
}

/** An expression as a message quotes it: a let of a megabyte is not repeated in full. */
export function shorten(source: string): string {
  return source.length > 200 ? `${source.slice(0, 200)}…` : source;
}

/** The problems of a rendering, collected field by field (every one at once) and thrown as one. */
export class Problems {
  private list: Problem[] = [];
  /** The `missing` of every problem collected: a second field missing the same names is dropped. */
  private readonly missingSeen = new Set<string>();

  /** A field's failure kept (a bound's once, a set of missing names once); anything else is thrown. */
  collect(error: unknown, where: string): void {
    if (error instanceof QuietError) return;
    if (error instanceof Located) {
      if (
        (error.code === 'TEMPLATE_TOO_LARGE' || error.code === 'TEMPLATE_DECIDED') &&
        this.list.some((p) => p.code === error.code)
      )
        return;
      const missing = error.missing.length > 0 ? [...new Set(error.missing)].sort().join(',') : undefined;
      if (missing !== undefined && this.missingSeen.has(missing)) return;
      if (missing !== undefined) this.missingSeen.add(missing);
      this.list.push({ code: error.code, text: error.message, ...(missing !== undefined ? { missing } : {}) });
    } else if (error instanceof TemplateSyntaxError)
      this.list.push({ code: 'TEMPLATE_SYNTAX', text: `${where}: ${error.message}` });
    else throw error;
  }

  /** Throws every problem collected so far as one usage error (exit 2). */
  finish(): void {
    if (this.list.length === 0) return;
    const problems = this.list;
    this.list = [];
    this.missingSeen.clear();
    // Every problem up to a bound, as a config error names them: 30 000 lets each missing its own
    // env variable are not a 3 MB line.
    const shown = problems.slice(0, PROBLEMS_SHOWN).map((p) => p.text);
    if (problems.length > PROBLEMS_SHOWN) shown.push(`and ${problems.length - PROBLEMS_SHOWN} more problems`);
    throw new UsageError(problems[0]!.code, shown.join('; '));
  }

  get any(): boolean {
    return this.list.length > 0;
  }
}
