// What an evaluation (evaluate.ts) works with: values and their taint, the rules that join and mark
// taints (a secret copied, a secret that chose), and the bounds of a pass (Budget). Kept apart from
// the walker so that the taint rules can be read, and tested, on their own.
import { HelperError } from './helper-error.js';
import type { HelperContext } from './helpers.js';

/**
 * A value that a step will give at run time: `render` and `validate` run no step, so
 * `steps.login.auth.client_token` renders as `[steps.login.auth.client_token]`.
 */
export class Placeholder {
  constructor(
    readonly text: string,
    /**
     * A step's answer will choose it (`m[steps.login.role]`): the same placeholder whatever the answer
     * until the steps run, so not decided by it before (a check of it fails or passes for every
     * answer), decided once they ran. render shows it as [REDACTED]; a name or path it gives is a secret's.
     */
    readonly stepChosen = false,
    /** A comparison withheld: a boolean whatever the secret holds, which a key or a branch beside text cannot be for any value. */
    readonly boolean = false,
  ) {}
  toString(): string {
    return `[${this.text}]`;
  }
}

/**
 * Where a secret value came from: the values read from env, file() or a step, and the strings the
 * helpers computed from them. A value carries the node of everything it derives from or was
 * decided by; the renderer registers a node's strings with the redactor when the value reaches a
 * field that is secret (SPEC "Templates": all but the URL up to its query and file() paths). Nodes
 * are shared, never copied, so a value reached by many paths is walked once (the renderer marks
 * each node it has registered).
 */
export interface Taint {
  readonly own: readonly string[];
  readonly parents: readonly Taint[];
  /**
   * A value read out of secret data by a member (`sa.private_key`): registering it registers the
   * data it came from too, but that data is then no secret everywhere (another part shown in the
   * URL, `sa.token_uri`, stays shown; renderer.ts, showUnless).
   */
  readonly part?: boolean;
  /**
   * Texts a secret decided (computed from a value a comparison chose: `upper(c ? "token" : "other")`):
   * registered apart from those read (Redactor.addDecided), so that a word of the plugin's own
   * message that equals one is not hidden for one secret and shown for another.
   */
  readonly chosen?: readonly string[];
}

/** A node of texts: the texts a secret decided apart (Taint.chosen) when `decided`. */
export function textNode(own: string[], decided: boolean | undefined, parents: Taint[], part?: boolean): Taint {
  return { own: decided ? [] : own, ...(decided ? { chosen: own } : {}), parents, ...(part ? { part } : {}) };
}

/** Secret with nothing to register: the steps' answers (steps.ts registers every string of them). */
export const MARK: Taint = { own: [], parents: [] };

export interface Value {
  value: unknown;
  /** Derived from, or decided by, a value read from env, file() or a step: a secret (see Taint). */
  taint?: Taint | undefined;
  /**
   * Chosen by a secret: the result of a condition, a comparison, `!`, `&&`, `||`, `??` or a computed
   * key that a secret decided. Secret even in the URL's origin and path and as a file() path, so that
   * no chain of comparisons spells a secret out where values are shown.
   */
  decided?: boolean | undefined;
  /** Not text of the config: read from env, vars, cluster, steps or a file (a relative path from it means the current directory). */
  outside?: boolean | undefined;
}

export function isSecret(value: Value): boolean {
  return value.taint !== undefined;
}

/** Every value a template computes is at most this long (as JSON): as the config, a file() and an answer are. */
export const MAX_VALUE_SIZE = 1024 * 1024;
/** What one pass over a config's templates may compute in all, and the nodes and data it may walk. */
export const MAX_TOTAL_SIZE = 16 * MAX_VALUE_SIZE;
const MAX_STEPS = 4_000_000;

/** What one pass over the templates has spent (the renderer keeps one per pass). */
export interface Budget {
  steps: number;
  computed: number;
}

/** A template computed past the bounds: a config error naming the field (exit 2). */
export class BudgetError extends HelperError {}

export interface EvalScope {
  /** env.NAME: undefined when unset or empty. Records the dependency; `secretName`: a secret gave the name (env[env.X]). */
  env: (name: string, secretName?: boolean) => string | undefined;
  vars: Record<string, string>;
  cluster: unknown;
  /** The steps that ran so far (every value secret); a Placeholder when no step runs (render, validate). */
  steps: Record<string, unknown> | Placeholder | undefined;
  lets: ReadonlyMap<string, Value | typeof FAILED>;
  context: HelperContext;
  /**
   * A name env is read by, or a path file() reads, that a secret gives but that is not known yet (a
   * step's answer before the steps run, a value withheld): as `secretName` of env and `secretChose`
   * of readFile, told before the steps run, when the cache decides whether it keys this call.
   */
  namedBySecret: (what: 'env' | 'file') => void;
  /** Marks the value as depending on a volatile helper (now, uuid, jwt). */
  volatile: () => void;
  budget: Budget;
  /** validate and render: a value a secret decides is withheld (withheld()), never computed. */
  withhold?: boolean;
  /**
   * Set when the evaluation met a value a secret decided: a failure after that may be one the
   * secret chose (a key that misses, text that is not JSON), so the renderer says nothing of it
   * that would tell which (see renderer.ts, evaluateChecked).
   */
  decidedSeen?: boolean;
}

/** A `let` whose own expression failed: its users fail quietly, the first error says why. */
export const FAILED = Symbol('failed');

/** A value is missing (undefined or null) where one is needed; `missing` names what was read as unset. */
export class MissingValueError extends Error {
  constructor(
    readonly missing: string[],
    reason: string,
  ) {
    super(reason);
  }
}

/** A use of a failed `let`: already reported. */
export class QuietError extends Error {}

/** What an evaluation read as missing: `env.X`, `vars.y`, a member path. */
export type Missing = string[];

/** One taint of many; an array, not rest arguments: a list literal may hold more items than a call takes. */
export function joinTaints(taints: ReadonlyArray<Taint | undefined>): Taint | undefined {
  let found: Taint | undefined;
  let many: Taint[] | undefined;
  for (const taint of taints) {
    if (taint === undefined || taint === found || taint === MARK) continue;
    if (found === undefined) found = taint;
    else (many ??= [found]).push(taint);
  }
  if (many) return { own: [], parents: many };
  return found ?? (taints.includes(MARK) ? MARK : undefined);
}

/** The marks of the values a result is computed from. */
export function from(parts: Value[]): Omit<Value, 'value'> {
  return {
    taint: joinTaints(parts.map((p) => p.taint)),
    decided: parts.some((p) => p.decided),
    outside: parts.some((p) => p.outside),
  };
}

/**
 * The marks of a result that other values chose (a condition, the left of `&&`): their taint joins
 * the result's. Whether a copied secret is set or truthy tells no more than that; a comparison or a
 * computed key tells what it holds, so those are `decided` where they are made (combine, member).
 */
export function chosen(result: Value, ...deciders: Value[]): Value {
  const taint = joinTaints([result.taint, ...deciders.map((d) => d.taint)]);
  const decided = result.decided || deciders.some((d) => d.decided);
  return { value: result.value, taint, decided, outside: result.outside || deciders.some((d) => d.outside) };
}

/** A comparison or a computed key: what it yields tells what a secret among them holds. */
export function decidedBy(scope: EvalScope, result: Value, ...deciders: Value[]): Value {
  const marked = chosen(result, ...deciders);
  if (marked.decided || deciders.some((d) => d.taint !== undefined)) scope.decidedSeen = true;
  if (!deciders.some((d) => d.taint !== undefined)) return marked;
  return scope.withhold ? withheld(marked) : { ...marked, decided: true };
}

/**
 * A test of a secret number, boolean or missing value (`!`, `c ? a : b`, `&&`, `||`, `??`): whether
 * it is truthy or set tells what it holds (`!(pin + -1234)` is `pin === 1234`; a secret boolean is
 * its own answer), so the test is a comparison. A secret string is truthy or set when it is given,
 * which is no secret (`env.X ?? "default"`); a placeholder is the same for every value.
 */
export function tested(scope: EvalScope, value: Value): Value {
  const v = value.value;
  if (value.taint === undefined || !(typeof v === 'number' || typeof v === 'boolean' || v === undefined || v === null))
    return value;
  return decidedBy(scope, { value: v, outside: value.outside }, value);
}

/** What validate and render show for a value a secret decided. */
export const SECRET_DECIDES = 'a secret decides';

/**
 * A value a secret decided, withheld (validate, render): a placeholder whatever the secret holds,
 * so what is computed from it, and whether that fails, is the same for every value of the secret.
 */
export function withheld(marks: Value): Value {
  return { value: new Placeholder(SECRET_DECIDES), taint: marks.taint, decided: true, outside: marks.outside };
}

/**
 * m[key] before the steps run, where the key is, or reads, a step's answer (`m[steps.login.role]`,
 * `steps.login[env.S]`): a placeholder that no value of the key changes, so the key's taint joins it
 * but does not decide it (Placeholder.stepChosen). A failure after it may be one the key chooses once
 * the steps run: the renderer says as little of it now as then (decidedSeen).
 */
export function stepChosen(scope: EvalScope, text: string, ...parts: Value[]): Value {
  scope.decidedSeen = true;
  return {
    value: new Placeholder(text, true),
    ...from(parts),
    taint: joinTaints([MARK, ...parts.map((p) => p.taint)]),
  };
}

export function tick(scope: EvalScope, steps = 1): void {
  scope.budget.steps += steps;
  if (scope.budget.steps > MAX_STEPS)
    throw new BudgetError(`the templates take more than ${MAX_STEPS} steps to evaluate`);
}

/** A computed value within the bounds, counted against the pass's total. */
export function bounded(value: unknown, scope: EvalScope): void {
  const size = sizeOf(value, scope);
  if (size > MAX_VALUE_SIZE)
    throw new BudgetError('the value exceeds 1 MiB (a template computes values of at most 1 MiB)');
  scope.budget.computed += size;
  if (scope.budget.computed > MAX_TOTAL_SIZE) throw new BudgetError('the templates compute more than 16 MiB in all');
}

/** The length of a value as JSON, about (escapes aside). Objects are measured once, by identity. */
const SIZES = new WeakMap<object, number>();

function sizeOf(value: unknown, scope: EvalScope): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return String(value).length;
  if (value instanceof Placeholder) return value.text.length + 2;
  const known = SIZES.get(value);
  if (known !== undefined) return known;
  // Data from outside (a step's answer, fromJson) is measured here, without recursion: an answer
  // nested deeper than the stack goes is measured all the same.
  const stack: Array<[object, boolean]> = [[value, false]];
  const open = new Set<object>();
  while (stack.length > 0) {
    const [object, expanded] = stack.pop()!;
    if (SIZES.has(object)) continue;
    const children: Array<[string, unknown]> = Array.isArray(object)
      ? object.map((v, i) => [String(i), v])
      : Object.entries(object);
    tick(scope, children.length + 1);
    if (!expanded) {
      open.add(object);
      stack.push([object, true]);
      for (const [, child] of children) {
        if (
          typeof child === 'object' &&
          child !== null &&
          !(child instanceof Placeholder) &&
          !SIZES.has(child) &&
          !open.has(child)
        )
          stack.push([child, false]);
      }
      continue;
    }
    let size = 2 + Math.max(0, children.length - 1);
    for (const [key, child] of children) {
      if (!Array.isArray(object)) size += key.length + 3;
      size +=
        typeof child === 'object' && child !== null && !(child instanceof Placeholder)
          ? (SIZES.get(child) ?? 0)
          : sizeOf(child, scope);
    }
    open.delete(object);
    SIZES.set(object, size);
  }
  return SIZES.get(value)!;
}
