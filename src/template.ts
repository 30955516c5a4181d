// Eta templates with {{ }} tags, no HTML escaping, and no silent empties: an expression that
// yields undefined or null is an error that names it. Every value read from `env` or `file()`,
// and every interpolation computed from one, is registered with the redactor as it is read.
import { Eta } from 'eta/core';
import { UsageError } from './errors.js';
import type { Redactor } from './redact.js';

export interface TemplateScope {
  env: Record<string, string | undefined>;
  vars: Record<string, string>;
  /** spec.cluster of KUBERNETES_EXEC_INFO, when client-go sent it. */
  cluster: Record<string, unknown> | undefined;
  readFile: (path: string) => string;
}

type AstItem = string | { t: string; val: string };

/** Thrown inside a template by the filter or a helper; turned into a UsageError by render(). */
class TemplateValueError extends Error {}

export class TemplateRenderer {
  private readonly eta: Eta;
  private readonly data: Record<string, unknown>;
  private secretReads = 0;
  private secretReadsSeen = 0;
  private missing: string[] = [];
  /** The secret values read during the current render(), to scrub pieces of them from JS errors. */
  private secretsRead: string[] = [];
  private interpolationIndex = 0;
  /** Every env name a template looked up, set or not: what the rendered request depends on. */
  readonly envRead = new Set<string>();

  constructor(
    private readonly scope: TemplateScope,
    private readonly redactor: Redactor,
  ) {
    this.eta = new Eta({
      tags: ['{{', '}}'],
      autoEscape: false,
      autoTrim: false,
      useWith: true,
      autoFilter: true,
      filterFunction: (value: unknown) => this.filter(value),
      // {{ expr }} interpolates; {{% js }} runs code (loops, conditions) for the rare case that needs it.
      parse: { exec: '%', interpolate: '', raw: '~' },
    });
    const env = this.trackedEnv();
    this.data = {
      env,
      // The global `process.env` would bypass the tracking above, and so the redaction: written out of
      // habit, `process.env.X` reads the same tracked env as `env.X`.
      process: { env },
      vars: this.tracked(scope.vars, 'vars', false),
      cluster: scope.cluster,
      urlencode: (s: unknown) => encodeURIComponent(this.arg('urlencode', s)),
      base64: (s: unknown) => Buffer.from(this.arg('base64', s), 'utf8').toString('base64'),
      base64decode: (s: unknown) => Buffer.from(this.arg('base64decode', s), 'base64').toString('utf8'),
      json: (v: unknown) => JSON.stringify(v === undefined ? null : v),
      file: (path: unknown) => this.file(this.arg('file', path)),
    };
  }

  /** Renders one template. `where` is the config field path, used in error messages. */
  render(template: string, where: string): string {
    if (!template.includes('{{')) return template;
    let ast: AstItem[];
    let fn: (this: Eta, data: object) => string;
    try {
      ast = this.eta.parse(template) as AstItem[];
      fn = this.eta.compile(template) as never;
    } catch (error) {
      throw new UsageError('TEMPLATE_SYNTAX', `${where}: template error: ${firstLine(error)}`, { cause: error });
    }
    this.missing = [];
    this.interpolationIndex = 0;
    this.secretReadsSeen = this.secretReads;
    this.secretsRead = [];
    try {
      return fn.call(this.eta, this.data);
    } catch (error) {
      const expressions = ast.filter((item): item is { t: string; val: string } => typeof item !== 'string' && item.t !== 'e');
      // One line, whatever whitespace the expression spans.
      const expression = expressions[this.interpolationIndex]?.val.trim().replace(/\s+/g, ' ');
      const shown = expression ? `{{ ${expression} }}` : 'template';
      if (error instanceof UsageError) throw new UsageError(error.code, `${where}: ${shown}: ${scrub(error.message, this.secretsRead)}`, { cause: error });
      if (error instanceof TemplateValueError) {
        const reason = this.missing.length > 0 ? `${this.missing.join(', ')} ${this.missing.length > 1 ? 'are' : 'is'} not set` : error.message;
        throw new UsageError('TEMPLATE_VALUE', `${where}: ${shown}: ${reason}${hint(this.missing)}`, { cause: error });
      }
      const noCluster = this.scope.cluster === undefined && /\bcluster\b/.test(expression ?? '')
        ? ' (KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry)'
        : '';
      throw new UsageError('TEMPLATE_EVAL', `${where}: ${shown}: ${scrub(firstLine(error), this.secretsRead)}${noCluster}`, { cause: error });
    }
  }

  private filter(value: unknown): string {
    const missing = this.missing;
    if (value === undefined || value === null) throw new TemplateValueError(`yields ${value}`);
    if (typeof value === 'object') throw new TemplateValueError('yields an object; wrap it in json(…)');
    const text = String(value);
    this.refuseMissingInside(text);
    if (this.secretReads !== this.secretReadsSeen) {
      // This interpolation was computed from a secret: whatever it produced is secret too.
      this.redactor.add(text);
      this.secretReadsSeen = this.secretReads;
    }
    // Missing names read by an interpolation that still produced a value (`env.X ?? "d"`) are fine.
    if (missing === this.missing) this.missing = [];
    this.interpolationIndex++;
    return text;
  }

  private arg(helper: string, value: unknown): string {
    if (value === undefined || value === null) throw new TemplateValueError(`${helper}() was given ${value}`);
    const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    this.refuseMissingInside(text);
    return text;
  }

  /**
   * JavaScript turns a missing value into the word inside a larger string: `vars.id + ":" +
   * env.SECRET` gives "id:undefined", which would reach the API as a wrong credential. A name read
   * as missing plus that word in the result is that mistake (a `??` default leaves no such word).
   */
  private refuseMissingInside(text: string): void {
    if (this.missing.length > 0 && /\b(undefined|null)\b/.test(text)) throw new TemplateValueError('a missing value was turned into text');
  }

  private file(path: string): string {
    let content: string;
    try {
      content = this.scope.readFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? firstLine(error);
      throw new UsageError('TEMPLATE_FILE', `file(${JSON.stringify(path)}) cannot be read: ${code}`, { cause: error });
    }
    const trimmed = content.replace(/\r?\n$/, '');
    this.redactor.add(trimmed);
    this.secretsRead.push(trimmed);
    this.secretReads++;
    return trimmed;
  }

  private trackedEnv(): Record<string, string | undefined> {
    return this.tracked(this.scope.env, 'env', true);
  }

  private tracked<T extends Record<string, string | undefined>>(source: T, name: string, secret: boolean): T {
    return new Proxy(source, {
      get: (target, key) => {
        if (typeof key !== 'string') return undefined;
        if (secret) this.envRead.add(key);
        const value = Object.prototype.hasOwnProperty.call(target, key) ? target[key] : undefined;
        if (value === undefined) {
          this.missing.push(/^[A-Za-z_$][\w$]*$/.test(key) ? `${name}.${key}` : `${name}[${JSON.stringify(key)}]`);
        } else if (secret) {
          this.redactor.add(value);
          this.secretsRead.push(value);
          this.secretReads++;
        }
        return value;
      },
      // `"X" in env` and Object.hasOwn(env, "X") depend on X as much as reading it does (the cache's
      // fast path re-checks exactly the names recorded here).
      has: (target, key) => {
        if (secret && typeof key === 'string') this.envRead.add(key);
        return Reflect.has(target, key);
      },
      getOwnPropertyDescriptor: (target, key) => {
        if (secret && typeof key === 'string') this.envRead.add(key);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
  }
}

function hint(missing: string[]): string {
  const first = missing[0];
  if (first?.startsWith('vars.')) return ` (pass --set ${first.slice(5)}=…, or give a default: ${first} ?? "…")`;
  if (first?.startsWith('env.')) return ` (set it in the environment or the kubeconfig exec env, or give a default: ${first} ?? "…")`;
  return '';
}

/**
 * The redactor replaces whole secrets; JavaScript's own messages may quote a piece of one (JSON.parse
 * cuts its input to ten characters: `"p@ss w0rd-"... is not valid JSON`, a slice names what it was
 * given). Any run of six or more characters that is part of a secret read by this render goes.
 */
function scrub(message: string, secrets: string[]): string {
  if (secrets.length === 0) return message;
  let out = '';
  for (let i = 0; i < message.length; ) {
    let longest = 0;
    for (const secret of secrets) {
      let length = longest + 1;
      while (i + length <= message.length && secret.includes(message.slice(i, i + length))) length++;
      longest = Math.max(longest, length - 1);
    }
    if (longest >= 6) {
      out += '[REDACTED]';
      i += longest;
    } else out += message[i++];
  }
  return out;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Eta ends the line with a colon before the source excerpt it adds below.
  return message.split('\n').find((line) => line.trim() !== '')?.trim().replace(/:$/, '') ?? 'failed';
}
