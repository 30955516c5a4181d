// Templates as the rest of the program sees them: checked when the config loads (every problem of
// every field at once), then rendered field by field with every missing value collected, so one
// run names them all. Tracks what the rendered request depends on (env names and files, read or
// named in any branch; volatile helpers). A value's taint (evaluate.ts) is registered with the
// redactor where it reaches a field that is secret: every field but the URL up to its query; a
// secret too short for the redactor to find is shown as [REDACTED] here (shownText).
import { UsageError } from '../errors.js';
import { REDACTED, type Redactor } from '../redact/redactor.js';
import { BudgetError, evaluate, FAILED, isSecret, MAX_TOTAL_SIZE, MissingValueError, Placeholder, QuietError, type Budget, type EvalScope, type Taint, type Value } from './evaluate.js';
import { HelperError } from './helper-error.js';
import { HELPER_NAMES } from './helpers.js';
import { foreignPlaceholders } from './placeholders.js';
import { eachNode, oneLine, parseExpression, parseTemplate, SCOPE_NAMES, TemplateSyntaxError, type Node, type Part } from './parse.js';

export interface TemplateScope {
  env: Record<string, string | undefined>;
  vars: Record<string, string>;
  /** spec.cluster of KUBERNETES_EXEC_INFO, when client-go sent it. */
  cluster: Record<string, unknown> | undefined;
  /** A file's content; `fromConfig`: the path is text of the config, not a value from env or vars. */
  readFile: (path: string, fromConfig?: boolean) => string;
  /** The absolute path that readFile reads for a path, for messages. */
  pathTried?: (path: string, fromConfig?: boolean) => string;
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
   * A shell habit (`$API_TOKEN`) in literal text: refused before any request by get-token,
   * validate, render and the generators alike (code TEMPLATE_HABIT).
   */
  habit?: boolean;
}

/** Names a `let` may not take: they would hide what templates read. */
const RESERVED_NAMES: ReadonlySet<string> = new Set([...SCOPE_NAMES, ...HELPER_NAMES, 'undefined', 'true', 'false', 'null', 'this']);

/**
 * The names every template can read: env, vars, cluster, steps, then the `let` names as each is
 * defined. One set that grows, never one rebuilt per `let` (20 000 lets made that quadratic).
 */
function scopeNames(): Set<string> {
  return new Set(SCOPE_NAMES);
}

/** Templates of one request, and how many steps run before it (the first `stepsBefore` of the config's). */
export interface TemplateGroup {
  templates: Iterable<[string, string]>;
  stepsBefore: number;
}

/**
 * Checks every `let` and template of a config, at load, before anything is evaluated. `lets` in
 * order (each may use the ones before; none may read steps, which have not run when lets are
 * evaluated); each group's templates may read only the steps before them. `steps`: every step
 * name of the config, in order.
 */
export function checkTemplates(lets: Array<[string, string]>, steps: string[], groups: TemplateGroup[]): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  const names = scopeNames();
  const stepIndex = new Map<string, number>();
  steps.forEach((step, i) => {
    if (!stepIndex.has(step)) stepIndex.set(step, i);
  });
  for (const [name, source] of lets) {
    const path = `webAPIProviderConfig.let.${name}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) issues.push({ path, message: 'a let name is a letter or _ followed by letters, digits or _' });
    else if (RESERVED_NAMES.has(name)) issues.push({ path, message: `${name} is taken: a let may not hide env, vars, cluster, steps or a helper` });
    const expression = source.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1');
    try {
      const node = parseExpression(expression, names);
      if (stepReferences(node).length > 0) issues.push({ path, message: `{{ ${oneLine(expression)} }}: a let cannot read steps (it is evaluated before any step runs); write the expression where it is used` });
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      issues.push({ path, message: error.message });
    }
    names.add(name);
  }
  for (const group of groups) {
    for (const [path, template] of group.templates) {
      try {
        const parts = parseTemplate(template, names);
        for (const problem of foreignPlaceholders(path, parts.filter((part) => typeof part === 'string'))) issues.push(problem);
        for (const part of parts) {
          if (typeof part === 'string') continue;
          for (const step of stepReferences(part.node)) {
            const problem = stepProblem(step, group.stepsBefore, steps, stepIndex);
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

/** The most step names a message lists: one message per template, each naming 20 000 steps, was quadratic. */
const STEPS_NAMED = 10;

function stepProblem(step: string | null, before: number, steps: string[], stepIndex: Map<string, number>): string | undefined {
  const index = step === null ? undefined : stepIndex.get(step);
  if (index !== undefined && index < before) return undefined;
  const shown = steps.slice(0, Math.min(before, STEPS_NAMED)).join(', ') + (before > STEPS_NAMED ? ` and ${before - STEPS_NAMED} more` : '');
  const which = before > 0 ? `the steps before it are ${shown}` : 'no step runs before it';
  if (step === null) return `name the step: steps.<name> (${which})`;
  if (index !== undefined) return `steps.${step} runs later than this request; ${which}`;
  return `steps.${step} is not a step; ${which}`;
}

/** The most problems one message names. */
const PROBLEMS_SHOWN = 100;

interface Problem {
  code: string;
  text: string;
  /** The names it found missing: a second field missing the same ones says nothing new. */
  missing?: string;
}

/** Where a template's text goes: the URL (shown up to its query) or any other field (secret). */
export type FieldKind = 'url' | 'value';

/**
 * A secret interpolation shorter than this is shown as [REDACTED] by the renderer itself: the
 * redactor ignores values too short to be secrets on their own (a boolean, a letter), but a config
 * can spell a secret out with them, one comparison at a time.
 */
const SHOWN_FROM_LENGTH = 8;

export class TemplateRenderer {
  /** Every env name a template looked up, set or not: what the rendered request depends on. */
  readonly envRead = new Set<string>();
  /**
   * Whether a template read env by a name a secret gave (env[env.X]): that name is a secret, so it
   * is kept out of envRead (and so out of the cache's ref and doctor's list); the cache is off then.
   */
  envReadBySecretName = false;
  /** Every env name and file() path that a template names literally, in any branch (the cache key records them all). */
  readonly envNamed = new Set<string>();
  readonly filesNamed = new Set<string>();
  /** With unsetEnvAsPlaceholder: the env names a value needed that were not set. */
  readonly envNeeded = new Set<string>();
  /** Whether any rendered value came from now(), uuid() or jwt(): it will differ next time. */
  volatile = false;
  private readonly lets = new Map<string, Value | typeof FAILED>();
  /** The scope names with the `let` names defined so far: kept, not rebuilt per template or let. */
  private readonly names = scopeNames();
  private readonly parsed = new Map<string, Part[]>();
  private problems: Problem[] = [];
  /** The `missing` of every problem collected: a second field missing the same names is dropped. */
  private readonly missingSeen = new Set<string>();
  private steps: Record<string, unknown> | Placeholder | undefined;
  private budget: Budget = { steps: 0, computed: 0 };
  /** Whether this pass met a value a secret decided: how much it computed before a bound then tells the secret. */
  private decidedInPass = false;
  /** Taint nodes already registered: each is walked once, however many values share it. */
  private readonly registered = new WeakSet<Taint>();
  private readonly added = new Set<string>();
  /** Fields whose shown text differs from the sent one (a short secret shown as [REDACTED]). */
  private readonly shown = new Map<string, string>();
  /** Each field as rendered before any step ran (the steps' values as placeholders). */
  private readonly beforeSteps = new Map<string, string>();
  /** Fields whose text holds a value from env, vars, cluster, steps or a file: a relative path there means the current directory. */
  private readonly outside = new Set<string>();
  /** Fields whose text holds a value a secret decided: a check of the text that fails must not say which. */
  private readonly decided = new Set<string>();

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
        const node = parseExpression(expression, this.names);
        this.noteReads(node);
        const value = await this.evaluateChecked(node, where, oneLine(expression));
        this.lets.set(name, value);
      } catch (error) {
        this.lets.set(name, FAILED);
        this.collect(error, where);
      }
      this.names.add(name);
    }
  }

  /** Makes the answers of the steps that ran readable as `steps.<name>`; 'placeholders' where none runs. */
  setSteps(steps: Record<string, unknown> | 'placeholders'): void {
    this.steps = steps === 'placeholders' ? new Placeholder('steps') : steps;
    // Each pass over the templates has its own budget.
    this.budget = { steps: 0, computed: 0 };
    this.decidedInPass = false;
  }

  /**
   * Renders one template; `where` is its field path, `kind` where its text goes: the URL is shown
   * up to its query (SPEC "Templates"), every other field is secret where a secret reaches it. A
   * problem is collected and '' returned: call finish() once every field is rendered to throw them all.
   */
  async render(template: string, where: string, kind: FieldKind = 'value'): Promise<string> {
    this.shown.delete(where);
    this.outside.delete(where);
    this.decided.delete(where);
    if (!template.includes('{{')) return template;
    // Past the pass's bound the problem is reported once; the rest is not evaluated.
    if (this.budget.computed > MAX_TOTAL_SIZE) return '';
    let parts = this.parsed.get(template);
    try {
      if (!parts) {
        parts = parseTemplate(template, this.names);
        this.parsed.set(template, parts);
        for (const part of parts) if (typeof part !== 'string') this.noteReads(part.node);
      }
    } catch (error) {
      this.collect(error, where);
      return '';
    }
    let out = '';
    let shown = '';
    let failed = false;
    // In the URL, what comes before its query is shown; from the first ? or # on, values are secret.
    let query = kind !== 'url';
    // Every part is evaluated: a second expression of the field missing a value is named too.
    for (const part of parts) {
      if (typeof part === 'string') {
        out += part;
        shown += part;
        if (/[?#]/.test(part)) query = true;
        continue;
      }
      try {
        const value = await this.evaluateChecked(part.node, where, oneLine(part.source));
        if (value.decided) this.decided.add(where);
        if (value.value instanceof Placeholder) {
          out += String(value.value);
          // Which step value a secret chose (`env.S > "m" ? steps.a.x : steps.a.y`) tells the secret.
          shown += value.decided ? REDACTED : String(value.value);
          continue;
        }
        if (typeof value.value === 'object') {
          if (value.decided) throw new Located('TEMPLATE_DECIDED', DECIDED_FAILURE);
          throw new Located('TEMPLATE_VALUE', `${where}: {{ ${oneLine(part.source)} }}: yields ${Array.isArray(value.value) ? 'a list' : 'an object'}; wrap it in json(…)`);
        }
        const text = String(value.value);
        if (value.outside) this.outside.add(where);
        // The URL's origin and path are for people to read, unless a secret chose them; a value
        // that brings its own query is secret from there on.
        const secret = isSecret(value) && (query || value.decided === true || /[?#]/.test(text));
        // What the fields hold in all is bounded too: 10 000 fields that each repeat a let of half
        // a megabyte would otherwise build gigabytes of request.
        this.budget.computed += text.length;
        if (this.budget.computed > MAX_TOTAL_SIZE) {
          // Where the pass crossed its bound tells how much came before it, which a secret may have decided.
          if (this.decidedInPass) throw new Located('TEMPLATE_DECIDED', DECIDED_FAILURE);
          throw new Located('TEMPLATE_TOO_LARGE', `${where}: the templates compute more than 16 MiB in all`);
        }
        if (secret) {
          // Only the interpolation: the literal text around it ("Basic ") is no secret.
          this.register(value.taint!);
          this.add(text);
        }
        if (/[?#]/.test(text)) query = true;
        out += text;
        shown += secret && text.replace(/\s+/g, '').length < SHOWN_FROM_LENGTH ? REDACTED : text;
      } catch (error) {
        this.collect(error, where);
        failed = true;
      }
    }
    if (failed) return '';
    if (shown !== out) this.shown.set(where, shown);
    if (this.steps instanceof Placeholder) this.beforeSteps.set(where, out);
    return out;
  }

  /** The field's last rendering as `render` and messages show it, when it differs from what is sent. */
  shownText(where: string): string | undefined {
    return this.shown.get(where);
  }

  /** Whether the field's last rendering holds a value that is not text of the config. */
  fromOutside(where: string): boolean {
    return this.outside.has(where);
  }

  /** Whether the field's last rendering holds a value a secret decided (a URL, a header or a TLS path that fails its check then says nothing of which). */
  secretChose(where: string): boolean {
    return this.decided.has(where);
  }

  /** The field as rendered before any step ran: its values from steps as placeholders. */
  textBeforeSteps(where: string): string | undefined {
    return this.beforeSteps.get(where);
  }

  /** The steps a template reads (`steps.login…`), by name. */
  stepsIn(template: string): string[] {
    const parts = this.parsed.get(template) ?? [];
    const names = new Set<string>();
    for (const part of parts) if (typeof part !== 'string') for (const step of stepReferences(part.node)) if (step !== null) names.add(step);
    return [...names];
  }

  /** Registers a secret text once, however many fields hold it. */
  private add(text: string): void {
    if (this.added.has(text)) return;
    this.added.add(text);
    this.redactor.add(text);
  }

  /** Registers every string a secret value derives from, each node of its taint once. */
  private register(taint: Taint): void {
    const stack = [taint];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (this.registered.has(node)) continue;
      this.registered.add(node);
      for (const text of node.own) this.add(text);
      for (const parent of node.parents) stack.push(parent);
    }
  }

  /** The env names and literal file() paths an expression names, in every branch. */
  private noteReads(node: Node): void {
    eachNode(node, (n) => {
      if (n.type === 'member' && n.object.type === 'name' && n.object.name === 'env' && n.property.type === 'literal') this.envNamed.add(String(n.property.value));
      if (n.type === 'call' && n.helper === 'file' && n.args[0]?.type === 'literal' && typeof n.args[0].value === 'string') this.filesNamed.add(n.args[0].value);
    });
  }

  /** Throws every problem collected so far as one usage error (exit 2). */
  finish(): void {
    if (this.problems.length === 0) return;
    const problems = this.problems;
    this.problems = [];
    this.missingSeen.clear();
    // Every problem up to a bound, as a config error names them: 30 000 lets each missing its own
    // env variable are not a 3 MB line.
    const shown = problems.slice(0, PROBLEMS_SHOWN).map((p) => p.text);
    if (problems.length > PROBLEMS_SHOWN) shown.push(`and ${problems.length - PROBLEMS_SHOWN} more problems`);
    throw new UsageError(problems[0]!.code, shown.join('; '));
  }

  get failed(): boolean {
    return this.problems.length > 0;
  }

  private async evaluateChecked(node: Node, where: string, source: string): Promise<Value> {
    const missing: string[] = [];
    const scope = this.evalScope();
    try {
      return await this.evaluateIn(scope, node, where, source, missing);
    } catch (error) {
      if (error instanceof Located && error.code === 'TEMPLATE_TOO_LARGE' && this.decidedInPass) throw new Located('TEMPLATE_DECIDED', DECIDED_FAILURE);
      // A failure once a secret decided a value may be one the secret chose: `{ a: 1 }[env.S > "m" ?
      // "a" : "b"]` misses, `fromJson(…)` fails, for some secrets only. Which field failed, and why,
      // would spell the secret out one let at a time; so all such failures of a pass are one message
      // that names neither. Unset env variables named in the config are read in every branch
      // (evaluate.ts, both()), so a message that names only those still says which.
      if (!scope.decidedSeen || error instanceof QuietError) throw error;
      if (error instanceof Located && error.missing.length > 0 && error.missing.every((name) => /^(env|vars)\.[A-Za-z_][A-Za-z0-9_]*$/.test(name))) throw error;
      throw new Located('TEMPLATE_DECIDED', DECIDED_FAILURE);
    }
  }

  private async evaluateIn(scope: EvalScope, node: Node, where: string, source: string, missing: string[]): Promise<Value> {
    let value: Value;
    try {
      value = await evaluate(node, scope, missing);
    } catch (error) {
      if (scope.decidedSeen) this.decidedInPass = true;
      if (error instanceof BudgetError) throw new Located('TEMPLATE_TOO_LARGE', `${where}: {{ ${shorten(source)} }}: ${error.message}`);
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
    if (scope.decidedSeen) this.decidedInPass = true;
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
    return { value: new Placeholder(`env.${names.join('+env.')}`), taint: { own: [], parents: [] } };
  }

  private collect(error: unknown, where: string): void {
    if (error instanceof QuietError) return;
    if (error instanceof Located) {
      if ((error.code === 'TEMPLATE_TOO_LARGE' || error.code === 'TEMPLATE_DECIDED') && this.problems.some((p) => p.code === error.code)) return;
      const missing = error.missing.length > 0 ? [...new Set(error.missing)].sort().join(',') : undefined;
      if (missing !== undefined && this.missingSeen.has(missing)) return;
      if (missing !== undefined) this.missingSeen.add(missing);
      this.problems.push({ code: error.code, text: error.message, ...(missing !== undefined ? { missing } : {}) });
    }
    else if (error instanceof TemplateSyntaxError) this.problems.push({ code: 'TEMPLATE_SYNTAX', text: `${where}: ${error.message}` });
    else throw error;
  }

  private evalScope(): EvalScope {
    const { env } = this.scope;
    return {
      env: (name, secretName) => {
        if (secretName) this.envReadBySecretName = true;
        else this.envRead.add(name);
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
        ...(this.scope.pathTried ? { pathTried: this.scope.pathTried } : {}),
        nowMs: this.scope.nowMs,
        uuid: this.scope.uuid,
      },
      volatile: () => {
        this.volatile = true;
      },
      budget: this.budget,
    };
  }
}

/** The one message for every failure that a secret may have chosen (evaluateChecked). */
export const DECIDED_FAILURE =
  'a template that compares or looks up by a value from env, file() or steps fails for the value it holds; which template and why is not said, as that would tell the secret: give every branch and key a value that each use accepts';

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
    // Never `env.X ?? "…"`: an env value is a secret, and a default would put one in the config.
    hints.push(`set ${which} in the environment or the kubeconfig exec env`);
  }
  if (missing.includes('cluster')) hints.push('KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry');
  return hints.length > 0 ? ` (${hints.join('; ')})` : '';
}

/** An expression as a message quotes it: a let of a megabyte is not repeated in full. */
function shorten(source: string): string {
  return source.length > 200 ? `${source.slice(0, 200)}…` : source;
}
