// Templates as the rest of the program sees them: checked when the config loads (every problem of
// every field at once), then rendered field by field with every missing value collected, so one
// run names them all. Tracks what the rendered request depends on (env names, volatile helpers)
// and registers every secret it computes with the redactor.
import { UsageError } from '../errors.js';
import type { Redactor } from '../redact/redactor.js';
import { evaluate, FAILED, MissingValueError, Placeholder, QuietError, type EvalScope, type Value } from './evaluate.js';
import { HelperError } from './helper-error.js';
import { HELPER_NAMES } from './helpers.js';
import { oneLine, parseExpression, parseTemplate, SCOPE_NAMES, TemplateSyntaxError, type Node, type Part } from './parse.js';

export interface TemplateScope {
  env: Record<string, string | undefined>;
  vars: Record<string, string>;
  /** spec.cluster of KUBERNETES_EXEC_INFO, when client-go sent it. */
  cluster: Record<string, unknown> | undefined;
  readFile: (path: string) => string;
  /** The clock and a UUID v4 source: now(), uuid() and jwt() get them from here, never from globals. */
  nowMs: () => number;
  uuid: () => string;
  /** The generators: a value missing only env variables renders as a placeholder (envNeeded lists them). */
  unsetEnvAsPlaceholder?: boolean;
}

/** A problem of one field, found when the config loads. */
export interface TemplateIssue {
  path: string;
  message: string;
  /**
   * A habit from a shell or another tool (`${API_TOKEN}`) in literal text: it would be sent as
   * written. validate and render warn; get-token refuses before any request.
   */
  habit?: boolean;
}

/** `${NAME}` and `$NAME` in the literal text of a template: shell habits that send the text as is. */
function shellHabits(path: string, parts: Part[]): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  for (const part of parts) {
    if (typeof part !== 'string') continue;
    for (const m of part.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)\b/g)) {
      const name = (m[1] ?? m[2])!;
      issues.push({ path, message: `${m[0]} is sent as written: a template reads the environment as {{ env.${name} }}`, habit: true });
    }
  }
  return issues;
}

/** Names a `let` may not take: they would hide what templates read. */
const RESERVED_NAMES: ReadonlySet<string> = new Set([...SCOPE_NAMES, ...HELPER_NAMES, 'undefined', 'true', 'false', 'null', 'this']);

/** The names every template can read: env, vars, cluster, steps and the `let` names. */
function scopeNames(letNames: Iterable<string>): Set<string> {
  return new Set([...SCOPE_NAMES, ...letNames]);
}

/** Templates of one request, and the steps that have run before it. */
export interface TemplateGroup {
  templates: Iterable<[string, string]>;
  stepsBefore: string[];
  /** Every step name of the config, to tell a later step from an unknown one. */
  allSteps: string[];
}

/**
 * Checks every `let` and template of a config, at load, before anything is evaluated. `lets` in
 * order (each may use the ones before; none may read steps, which have not run when lets are
 * evaluated); each group's templates may read only the steps before them.
 */
export function checkTemplates(lets: Array<[string, string]>, groups: TemplateGroup[]): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  const defined: string[] = [];
  for (const [name, source] of lets) {
    const path = `webAPIProviderConfig.let.${name}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) issues.push({ path, message: 'a let name is a letter or _ followed by letters, digits or _' });
    else if (RESERVED_NAMES.has(name)) issues.push({ path, message: `${name} is taken: a let may not hide env, vars, cluster, steps or a helper` });
    const expression = source.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1');
    try {
      const node = parseExpression(expression, scopeNames(defined));
      if (stepReferences(node).length > 0) issues.push({ path, message: `{{ ${oneLine(expression)} }}: a let cannot read steps (it is evaluated before any step runs); write the expression where it is used` });
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      issues.push({ path, message: error.message });
    }
    defined.push(name);
  }
  const names = scopeNames(defined);
  for (const group of groups) {
    for (const [path, template] of group.templates) {
      try {
        const parts = parseTemplate(template, names);
        issues.push(...shellHabits(path, parts));
        for (const part of parts) {
          if (typeof part === 'string') continue;
          for (const step of stepReferences(part.node)) {
            const problem = stepProblem(step, group);
            if (problem) issues.push({ path, message: `{{ ${oneLine(part.source)} }}: ${problem}` });
          }
        }
      } catch (error) {
        if (!(error instanceof TemplateSyntaxError)) throw error;
        issues.push({ path, message: error.message });
      }
    }
  }
  return issues;
}

/** The step names an expression reads (`steps.login…`); null for `steps[expr]` or `steps` as a whole. */
function stepReferences(node: Node): Array<string | null> {
  const found: Array<string | null> = [];
  const walk = (n: Node, asObject: boolean): void => {
    switch (n.type) {
      case 'name':
        if (n.name === 'steps' && !asObject) found.push(null);
        return;
      case 'member':
        if (n.object.type === 'name' && n.object.name === 'steps') {
          found.push(n.property.type === 'literal' && typeof n.property.value === 'string' ? n.property.value : null);
        } else walk(n.object, true);
        walk(n.property, false);
        return;
      case 'array':
        n.items.forEach((item) => walk(item, false));
        return;
      case 'object':
        n.entries.forEach(([, item]) => walk(item, false));
        return;
      case 'call':
        n.args.forEach((arg) => walk(arg, false));
        return;
      case 'not':
        walk(n.argument, false);
        return;
      case 'binary':
        walk(n.left, false);
        walk(n.right, false);
        return;
      case 'conditional':
        walk(n.test, false);
        walk(n.consequent, false);
        walk(n.alternate, false);
        return;
      case 'literal':
        return;
    }
  };
  walk(node, false);
  return found;
}

function stepProblem(step: string | null, group: TemplateGroup): string | undefined {
  const before = group.stepsBefore.length > 0 ? `the steps before it are ${group.stepsBefore.join(', ')}` : 'no step runs before it';
  if (step === null) return `name the step: steps.<name> (${before})`;
  if (group.stepsBefore.includes(step)) return undefined;
  if (group.allSteps.includes(step)) return `steps.${step} runs later than this request; ${before}`;
  return `steps.${step} is not a step; ${before}`;
}

interface Problem {
  code: string;
  text: string;
  /** The names it found missing: a second field missing the same ones says nothing new. */
  missing?: string;
}

export class TemplateRenderer {
  /** Every env name a template looked up, set or not: what the rendered request depends on. */
  readonly envRead = new Set<string>();
  /** With unsetEnvAsPlaceholder: the env names a value needed that were not set. */
  readonly envNeeded = new Set<string>();
  /** Whether any rendered value came from now(), uuid() or jwt(): it will differ next time. */
  volatile = false;
  private readonly lets = new Map<string, Value | typeof FAILED>();
  private readonly parsed = new Map<string, Part[]>();
  private problems: Problem[] = [];
  private steps: Record<string, unknown> | Placeholder | undefined;

  constructor(
    private readonly scope: TemplateScope,
    private readonly redactor: Redactor,
  ) {}

  /** Evaluates the `let` names in order. Failures are collected like any field's. */
  async defineLets(lets: Array<[string, string]>): Promise<void> {
    for (const [name, source] of lets) {
      const where = `webAPIProviderConfig.let.${name}`;
      const expression = source.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1');
      try {
        const node = parseExpression(expression, scopeNames(this.lets.keys()));
        const value = await this.evaluateChecked(node, where, oneLine(expression));
        this.lets.set(name, value);
      } catch (error) {
        this.lets.set(name, FAILED);
        this.collect(error, where);
      }
    }
  }

  /** Makes the answers of the steps that ran readable as `steps.<name>`; 'placeholders' where none runs. */
  setSteps(steps: Record<string, unknown> | 'placeholders'): void {
    this.steps = steps === 'placeholders' ? new Placeholder('steps') : steps;
  }

  /**
   * Renders one template; `where` is its field path. A problem is collected and '' returned: call
   * finish() once every field is rendered to throw them all.
   */
  async render(template: string, where: string): Promise<string> {
    if (!template.includes('{{')) return template;
    let parts = this.parsed.get(template);
    try {
      if (!parts) {
        parts = parseTemplate(template, scopeNames(this.lets.keys()));
        this.parsed.set(template, parts);
      }
    } catch (error) {
      this.collect(error, where);
      return '';
    }
    let out = '';
    let failed = false;
    // Every part is evaluated: a second expression of the field missing a value is named too.
    for (const part of parts) {
      if (typeof part === 'string') {
        out += part;
        continue;
      }
      try {
        const value = await this.evaluateChecked(part.node, where, oneLine(part.source));
        if (value.value instanceof Placeholder) {
          out += String(value.value);
          continue;
        }
        if (typeof value.value === 'object') {
          throw new Located('TEMPLATE_VALUE', `${where}: {{ ${oneLine(part.source)} }}: yields ${Array.isArray(value.value) ? 'a list' : 'an object'}; wrap it in json(…)`);
        }
        const text = String(value.value);
        // Only the interpolation: the literal text around it ("Basic ") is no secret.
        if (value.secret) this.redactor.add(text);
        out += text;
      } catch (error) {
        this.collect(error, where);
        failed = true;
      }
    }
    return failed ? '' : out;
  }

  /** Throws every problem collected so far as one usage error (exit 2). */
  finish(): void {
    if (this.problems.length === 0) return;
    const problems = this.problems;
    this.problems = [];
    throw new UsageError(problems[0]!.code, problems.map((p) => p.text).join('; '));
  }

  get failed(): boolean {
    return this.problems.length > 0;
  }

  private async evaluateChecked(node: Node, where: string, source: string): Promise<Value> {
    const missing: string[] = [];
    let value: Value;
    try {
      value = await evaluate(node, this.evalScope(), missing);
    } catch (error) {
      if (error instanceof MissingValueError) {
        const standIn = this.standIn(error.missing);
        if (standIn) return standIn;
        throw new Located('TEMPLATE_VALUE', `${where}: {{ ${source} }}: ${missingText(error.missing, error.message)}`, error.missing);
      }
      if (error instanceof HelperError) throw new Located('TEMPLATE_EVAL', `${where}: {{ ${source} }}: ${error.message}`);
      if (error instanceof QuietError) throw error;
      if (error instanceof UsageError) throw new Located(error.code, `${where}: {{ ${source} }}: ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code === 'string') throw new Located('TEMPLATE_FILE', `${where}: {{ ${source} }}: ${(error as Error).message}`);
      throw error;
    }
    if (value.value === undefined || value.value === null) {
      const standIn = this.standIn(missing);
      if (standIn) return standIn;
      const reason = missing.length > 0 ? '' : `yields ${value.value === undefined ? 'nothing' : 'null'}`;
      throw new Located('TEMPLATE_VALUE', `${where}: {{ ${source} }}: ${missingText(missing, reason)}`, missing);
    }
    return value;
  }

  /**
   * For the generators, which need the config's shape but never its secret values: a value that
   * is missing only for want of env variables stands in as a placeholder, and the names are kept.
   */
  private standIn(missing: string[]): Value | undefined {
    if (!this.scope.unsetEnvAsPlaceholder || missing.length === 0) return undefined;
    const names: string[] = [];
    for (const entry of new Set(missing)) {
      const name = /^env\.(.+)$/.exec(entry)?.[1] ?? /^env\[(".*")\]$/.exec(entry)?.[1];
      if (name === undefined) return undefined;
      names.push(name.startsWith('"') ? (JSON.parse(name) as string) : name);
    }
    for (const name of names) this.envNeeded.add(name);
    return { value: new Placeholder(`env.${names.join('+env.')}`), secret: true };
  }

  private collect(error: unknown, where: string): void {
    if (error instanceof QuietError) return;
    if (error instanceof Located) {
      const missing = error.missing.length > 0 ? [...new Set(error.missing)].sort().join(',') : undefined;
      if (missing !== undefined && this.problems.some((p) => p.missing === missing)) return;
      this.problems.push({ code: error.code, text: error.message, ...(missing !== undefined ? { missing } : {}) });
    }
    else if (error instanceof TemplateSyntaxError) this.problems.push({ code: 'TEMPLATE_SYNTAX', text: `${where}: ${error.message}` });
    else throw error;
  }

  private evalScope(): EvalScope {
    const { env } = this.scope;
    return {
      env: (name) => {
        this.envRead.add(name);
        const value = Object.hasOwn(env, name) ? env[name] : undefined;
        // SPEC: a variable set to the empty string reads as not set.
        return value === '' ? undefined : value;
      },
      vars: this.scope.vars,
      cluster: this.scope.cluster,
      steps: this.steps,
      lets: this.lets,
      context: {
        readFile: this.scope.readFile,
        nowMs: this.scope.nowMs,
        uuid: this.scope.uuid,
      },
      secret: (text) => this.redactor.add(text),
      volatile: () => {
        this.volatile = true;
      },
    };
  }
}

/** A problem with its field and expression already in the message. */
class Located extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly missing: string[] = [],
  ) {
    super(message);
  }
}

function missingText(missing: string[], reason: string): string {
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
    hints.push(`set ${which} in the environment or the kubeconfig exec env, or give a default: ${env[0]} ?? "…"`);
  }
  if (missing.includes('cluster')) hints.push('KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry');
  return hints.length > 0 ? ` (${hints.join('; ')})` : '';
}
