// Templates as the rest of the program sees them: checked when the config loads (every problem of
// every field at once), then rendered field by field with every missing value collected, so one
// run names them all. Tracks what the rendered request depends on (env names and files, read or
// named in any branch; volatile helpers). A value's taint (evaluate.ts) is registered with the
// redactor where it reaches a field that is secret: every field but the URL up to its query; a
// secret too short for the redactor to find is shown as [REDACTED] in the field's shown text.
import { UsageError } from '../errors.js';
import { REDACTED, type Redactor } from '../redact/redactor.js';
import { evaluate } from './evaluate.js';
import {
  BudgetError,
  FAILED,
  isSecret,
  MAX_TOTAL_SIZE,
  MissingValueError,
  Placeholder,
  QuietError,
  type Budget,
  type EvalScope,
  type Value,
} from './evaluate-value.js';
import { HelperError } from './helper-error.js';
import { SecretRegistry } from './secret-registry.js';
import { scopeNames } from './check.js';
import { eachNode, oneLine, parseExpression, parseTemplate, type Node, type Part } from './parse.js';
import { literal, stepsOf, type FieldKind, type FieldReads, type RenderedField } from './rendered-field.js';
import { DECIDED_FAILURE, Located, missingText, Problems, shorten } from './problems.js';

export interface TemplateScope {
  env: Record<string, string | undefined>;
  vars: Record<string, string>;
  /** spec.cluster of KUBERNETES_EXEC_INFO, when client-go sent it. */
  cluster: Record<string, unknown> | undefined;
  /** A file's content; `fromConfig`: the path is text of the config, not a value from env or vars; `secretChose`: a secret chose the path. */
  readFile: (path: string, fromConfig?: boolean, secretChose?: boolean) => string;
  /** The absolute path that readFile reads for a path, for messages. */
  pathTried?: (path: string, fromConfig?: boolean) => string;
  /** The clock and a UUID v4 source: now(), uuid() and jwt() get them from here, never from globals. */
  nowMs: () => number;
  uuid: () => string;
  /** The generators: a value missing only env variables renders as a placeholder (envNeeded lists them). */
  unsetEnvAsPlaceholder?: boolean;
  /**
   * validate and render: a value a secret decided is withheld (a placeholder, shown as [REDACTED]),
   * never computed, so whether the templates fail cannot depend on the secret's value: one run
   * per bit of a comparison would spell it out through the exit code.
   */
  withholdDecided?: boolean;
}

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
  /**
   * Whether a template read a file whose path a secret chose (file(env.S > "m" ? "a" : "b")): the
   * path is a secret, so it is kept out of the files read (doctor's list, the cache's ref), and the
   * cache is off then, as for envReadBySecretName.
   */
  fileReadBySecretPath = false;
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
  private readonly problems = new Problems();
  private steps: Record<string, unknown> | Placeholder | undefined;
  private budget: Budget = { steps: 0, computed: 0 };
  /** Whether this pass met a value a secret decided: how much it computed before a bound then tells the secret. */
  private decidedInPass = false;
  /** What this renderer has told the redactor, and what it will once a secret is secret everywhere. */
  private readonly secretsSeen: SecretRegistry;

  constructor(
    private readonly scope: TemplateScope,
    redactor: Redactor,
  ) {
    this.secretsSeen = new SecretRegistry(redactor);
  }

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
        this.problems.collect(error, where);
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
   * problem is collected and the field is empty: call finish() once every field is rendered to
   * throw them all.
   */
  async render(template: string, where: string, kind: FieldKind = 'value'): Promise<RenderedField> {
    if (!template.includes('{{')) return literal(template);
    // Past the pass's bound the problem is reported once; the rest is not evaluated.
    if (this.budget.computed > MAX_TOTAL_SIZE) return literal('');
    let parts = this.parsed.get(template);
    try {
      if (!parts) {
        parts = parseTemplate(template, this.names);
        this.parsed.set(template, parts);
        for (const part of parts) if (typeof part !== 'string') this.noteReads(part.node);
      }
    } catch (error) {
      this.problems.collect(error, where);
      return literal('');
    }
    let sent = '';
    let shown = '';
    let failed = false;
    const secrets: string[] = [];
    const read: FieldReads = { outside: false, decided: false, steps: stepsOf(parts), withheld: false, secret: false };
    // In the URL, what comes before its query is shown; from the first ? or # on, values are secret.
    let query = kind !== 'url';
    // Every part is evaluated: a second expression of the field missing a value is named too.
    for (const part of parts) {
      if (typeof part === 'string') {
        sent += part;
        shown += part;
        if (/[?#]/.test(part)) query = true;
        continue;
      }
      try {
        const value = await this.evaluateChecked(part.node, where, oneLine(part.source));
        if (value.decided) read.decided = true;
        // Computed from a withheld value: a placeholder, or text made with one.
        if (value.decided && this.scope.withholdDecided) read.withheld = true;
        if (value.value instanceof Placeholder) {
          // What it will be is not known, but the secrets it is made from are (env.ID in
          // basicAuth(env.ID, steps.login.secret), both branches of a withheld choice): registered as a
          // run registers them, so that render and validate hide them elsewhere too (the URL's path).
          // One a step's answer will choose (m[steps.login.role]) is treated so already.
          const chosen = value.decided === true || value.value.stepChosen;
          if (isSecret(value) && (query || chosen)) {
            this.secretsSeen.register(value.taint!);
            read.secret = true;
          }
          sent += String(value.value);
          // Which step value a secret chose (`env.S > "m" ? steps.a.x : steps.a.y`) tells the secret.
          shown += chosen ? REDACTED : String(value.value);
          continue;
        }
        if (typeof value.value === 'object') {
          if (value.decided) throw new Located('TEMPLATE_DECIDED', DECIDED_FAILURE);
          throw new Located(
            'TEMPLATE_VALUE',
            `${where}: {{ ${oneLine(part.source)} }}: yields ${Array.isArray(value.value) ? 'a list' : 'an object'}; wrap it in json(…)`,
          );
        }
        const text = String(value.value);
        if (value.outside) read.outside = true;
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
          read.secret = true;
          // Only the interpolation: the literal text around it ("Basic ") is no secret.
          this.secretsSeen.register(value.taint!);
          // A value a secret decided is registered apart: a word of the plugin's own messages that
          // equals it must read the same whichever the secret chose (redactor.ts, decidedTier).
          if (value.decided) this.secretsSeen.addDecided(text);
          else this.secretsSeen.addWhole(text);
          secrets.push(text);
        } else if (isSecret(value)) this.secretsSeen.showUnless(text, value.taint!);
        if (/[?#]/.test(text)) query = true;
        sent += text;
        // A value a secret decided is [REDACTED] whatever its length: the redactor does not search
        // the plugin's own text (render, validate, a message naming the URL) for it.
        const masked = secret && (value.decided === true || text.replace(/\s+/g, '').length < SHOWN_FROM_LENGTH);
        if (masked && !value.decided) read.shortRead = true;
        shown += masked ? REDACTED : text;
      } catch (error) {
        this.problems.collect(error, where);
        failed = true;
      }
    }
    if (failed) return literal('');
    return { sent, shown, secrets, read };
  }

  /** The env names and literal file() paths an expression names, in every branch. */
  private noteReads(node: Node): void {
    eachNode(node, (n) => {
      if (n.type === 'member' && n.object.type === 'name' && n.object.name === 'env' && n.property.type === 'literal')
        this.envNamed.add(String(n.property.value));
      if (
        n.type === 'call' &&
        n.helper === 'file' &&
        n.args[0]?.type === 'literal' &&
        typeof n.args[0].value === 'string'
      )
        this.filesNamed.add(n.args[0].value);
    });
  }

  /** Throws every problem collected so far as one usage error (exit 2). */
  finish(): void {
    this.problems.finish();
  }

  get failed(): boolean {
    return this.problems.any;
  }

  private async evaluateChecked(node: Node, where: string, source: string): Promise<Value> {
    const missing: string[] = [];
    const scope = this.evalScope();
    try {
      return await this.evaluateIn(scope, node, where, source, missing);
    } catch (error) {
      if (error instanceof Located && error.code === 'TEMPLATE_TOO_LARGE' && this.decidedInPass)
        throw new Located('TEMPLATE_DECIDED', DECIDED_FAILURE);
      // A failure once a secret decided a value may be one the secret chose: `{ a: 1 }[env.S > "m" ?
      // "a" : "b"]` misses, `fromJson(…)` fails, for some secrets only. Which field failed, and why,
      // would spell the secret out one let at a time; so all such failures of a pass are one message
      // that names neither. Unset env variables named in the config are read in every branch
      // (evaluate.ts, both()), so a message that names only those still says which.
      if (!scope.decidedSeen || error instanceof QuietError) throw error;
      if (
        error instanceof Located &&
        error.missing.length > 0 &&
        error.missing.every((name) => /^(env|vars)\.[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      )
        throw error;
      throw new Located('TEMPLATE_DECIDED', DECIDED_FAILURE);
    }
  }

  private async evaluateIn(
    scope: EvalScope,
    node: Node,
    where: string,
    source: string,
    missing: string[],
  ): Promise<Value> {
    let value: Value;
    try {
      value = await evaluate(node, scope, missing);
    } catch (error) {
      if (scope.decidedSeen) this.decidedInPass = true;
      if (error instanceof BudgetError)
        throw new Located('TEMPLATE_TOO_LARGE', `${where}: {{ ${shorten(source)} }}: ${error.message}`);
      if (error instanceof MissingValueError) {
        const standIn = this.standIn(error.missing);
        if (standIn) return standIn;
        throw new Located(
          'TEMPLATE_VALUE',
          `${where}: {{ ${source} }}: ${missingText(error.missing, error.message)}`,
          error.missing,
        );
      }
      if (error instanceof HelperError)
        throw new Located('TEMPLATE_EVAL', `${where}: {{ ${source} }}: ${error.message}`);
      if (error instanceof QuietError) throw error;
      if (error instanceof UsageError) throw new Located(error.code, `${where}: {{ ${source} }}: ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code === 'string')
        throw new Located('TEMPLATE_FILE', `${where}: {{ ${source} }}: ${(error as Error).message}`);
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
        readFile: (path, fromConfig, secretChose) => {
          if (secretChose) this.fileReadBySecretPath = true;
          return this.scope.readFile(path, fromConfig, secretChose);
        },
        ...(this.scope.pathTried ? { pathTried: this.scope.pathTried } : {}),
        nowMs: this.scope.nowMs,
        uuid: this.scope.uuid,
      },
      namedBySecret: (what) => {
        if (what === 'env') this.envReadBySecretName = true;
        else this.fileReadBySecretPath = true;
      },
      volatile: () => {
        this.volatile = true;
      },
      budget: this.budget,
      ...(this.scope.withholdDecided ? { withhold: true } : {}),
    };
  }
}
