// Walks a checked expression tree (parse.ts). Values carry their taint: whatever is read from env,
// file() or a step, and whatever is computed or chosen from one, is secret, and the renderer
// registers it with the redactor where it is used. Every value is bounded (MAX_VALUE_SIZE) and so is
// the work of a pass (Budget). Member access reads own properties of plain data only.
import { FORBIDDEN_PROPERTIES, type Node } from './parse.js';
import { HelperError } from './helper-error.js';
import { helperNamed, type HelperContext } from './helpers.js';

/**
 * A value that a step will give at run time: `render` and `validate` run no step, so
 * `steps.login.auth.client_token` renders as `[steps.login.auth.client_token]`.
 */
export class Placeholder {
  constructor(readonly text: string) {}
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
}

/** Secret with nothing to register: the steps' answers (steps.ts registers every string of them). */
const MARK: Taint = { own: [], parents: [] };

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
const MAX_VALUE_SIZE = 1024 * 1024;
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
  /** Marks the value as depending on a volatile helper (now, uuid, jwt). */
  volatile: () => void;
  budget: Budget;
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

/** One node of the taint graph for several: shared when there is one, a new node only to join two. */
/** One taint of many; an array, not rest arguments: a list literal may hold more items than a call takes. */
function joinTaints(taints: ReadonlyArray<Taint | undefined>): Taint | undefined {
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
function from(parts: Value[]): Omit<Value, 'value'> {
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
function chosen(result: Value, ...deciders: Value[]): Value {
  const taint = joinTaints([result.taint, ...deciders.map((d) => d.taint)]);
  const decided = result.decided || deciders.some((d) => d.decided);
  return { value: result.value, taint, decided, outside: result.outside || deciders.some((d) => d.outside) };
}

/** A comparison or a computed key: what it yields tells what a secret among them holds. */
function decidedBy(scope: EvalScope, result: Value, ...deciders: Value[]): Value {
  const marked = chosen(result, ...deciders);
  if (marked.decided || deciders.some((d) => d.taint !== undefined)) scope.decidedSeen = true;
  return deciders.some((d) => d.taint !== undefined) ? { ...marked, decided: true } : marked;
}

function tick(scope: EvalScope, steps = 1): void {
  scope.budget.steps += steps;
  if (scope.budget.steps > MAX_STEPS) throw new BudgetError(`the templates take more than ${MAX_STEPS} steps to evaluate`);
}

/** A computed value within the bounds, counted against the pass's total. */
function bounded(value: unknown, scope: EvalScope): void {
  const size = sizeOf(value, scope);
  if (size > MAX_VALUE_SIZE) throw new BudgetError('the value exceeds 1 MiB (a template computes values of at most 1 MiB)');
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
    const children: Array<[string, unknown]> = Array.isArray(object) ? object.map((v, i) => [String(i), v]) : Object.entries(object);
    tick(scope, children.length + 1);
    if (!expanded) {
      open.add(object);
      stack.push([object, true]);
      for (const [, child] of children) {
        if (typeof child === 'object' && child !== null && !(child instanceof Placeholder) && !SIZES.has(child) && !open.has(child)) stack.push([child, false]);
      }
      continue;
    }
    let size = 2 + Math.max(0, children.length - 1);
    for (const [key, child] of children) {
      if (!Array.isArray(object)) size += key.length + 3;
      size += typeof child === 'object' && child !== null && !(child instanceof Placeholder) ? (SIZES.get(child) ?? 0) : sizeOf(child, scope);
    }
    open.delete(object);
    SIZES.set(object, size);
  }
  return SIZES.get(value)!;
}

export async function evaluate(node: Node, scope: EvalScope, missing: Missing): Promise<Value> {
  tick(scope);
  switch (node.type) {
    case 'literal':
      return { value: node.value };
    case 'array': {
      const items: Value[] = [];
      for (const item of node.items) items.push(await evaluate(item, scope, missing));
      // JSON and jwt() would drop it without a word: a claim or a list item that never reaches the API.
      if (items.some((i) => i.value === undefined)) throw new MissingValueError([...missing], 'a list was given a missing value');
      const value = items.map((i) => i.value);
      bounded(value, scope);
      return { value, ...from(items) };
    }
    case 'object': {
      const object: Record<string, unknown> = {};
      const entries: Value[] = [];
      for (const [key, item] of node.entries) {
        const value = await evaluate(item, scope, missing);
        if (value.value === undefined) throw new MissingValueError([...missing], `{ ${key}: … } was given a missing value`);
        Object.defineProperty(object, key, { value: value.value, enumerable: true, writable: true, configurable: true });
        entries.push(value);
      }
      bounded(object, scope);
      return { value: object, ...from(entries) };
    }
    case 'name':
      return name(node.name, scope);
    case 'member':
      return member(node, scope, missing);
    case 'call':
      return call(node, scope, missing);
    case 'not': {
      const argument = await evaluate(node.argument, scope, missing);
      return chosen({ value: !argument.value }, argument);
    }
    case 'conditional': {
      const test = await evaluate(node.test, scope, missing);
      if (!test.decided) return chosen(await evaluate(test.value ? node.consequent : node.alternate, scope, missing), test);
      // A comparison of secrets chose the branch: both are evaluated, so that an error of one (a
      // missing value, a file that cannot be read) does not tell which one it chose.
      const [yes, no] = await both(node.consequent, node.alternate, scope, missing);
      return chosen(test.value ? yes : no, test);
    }
    case 'binary':
      return binary(node, scope, missing);
  }
}

async function call(node: Extract<Node, { type: 'call' }>, scope: EvalScope, missing: Missing): Promise<Value> {
  const helper = helperNamed(node.helper)!;
  const args: Value[] = [];
  // Every argument is evaluated before a missing one fails the call: one run names them all.
  let lacking: string | undefined;
  for (const arg of node.args) {
    const value = await evaluateOrMissing(arg, scope, missing);
    if (value instanceof MissingValueError) {
      lacking ??= value.message;
      continue;
    }
    if (value.value === undefined || value.value === null) {
      lacking ??= `${node.helper}() was given ${value.value === undefined ? 'a missing value' : 'null'}`;
      continue;
    }
    args.push(value);
  }
  if (lacking !== undefined) throw new MissingValueError([...missing], lacking);
  if (helper.volatile) scope.volatile();
  // ASCII: a placeholder may stand in a header, which cannot carry U+2026.
  if (args.some((a) => a.value instanceof Placeholder)) return { value: new Placeholder(`${node.helper}(...)`), ...from(args), taint: joinTaints([MARK, ...args.map((a) => a.taint)]) };
  let context = scope.context;
  if (helper.path) {
    // A path written in the config means its directory; one from env or vars, the current one. A
    // path a secret chose is not named in a message: which file failed would tell the secret.
    const path = args[0]!;
    context = { ...context, readFile: (p) => scope.context.readFile(p, !path.outside), pathTried: (p) => scope.context.pathTried?.(p, !path.outside) ?? p, pathShown: !path.decided };
  }
  const result = await helper.call(
    args.map((a) => a.value),
    context,
  );
  bounded(result, scope);
  if (helper.path) {
    // The content is the secret, not the path (SPEC: file() paths are not secret).
    return { value: result, taint: { own: typeof result === 'string' ? [result] : [], parents: [] }, decided: args[0]!.decided, outside: true };
  }
  const marks = from(args);
  if (!helper.secret && marks.taint === undefined) return { value: result, ...marks };
  // The helper's result is registered where it is used, with the forms a server may echo (the
  // base64 of a basicAuth pair) and the arguments that are secret wherever they go (a jwt() key).
  const own: string[] = [];
  if (typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean') own.push(String(result));
  if (helper.forms) own.push(...helper.forms(result));
  for (const index of helper.secretArgs ?? []) if (index < args.length) for (const text of texts(args[index]!.value, scope)) own.push(text);
  const parents = args.map((a) => a.taint).filter((t): t is Taint => t !== undefined);
  return { value: result, ...marks, taint: { own, parents } };
}

function name(identifier: string, scope: EvalScope): Value {
  switch (identifier) {
    case 'vars':
      return { value: scope.vars, outside: true };
    case 'cluster':
      return { value: scope.cluster, outside: true };
    case 'steps':
      return { value: scope.steps, taint: MARK, outside: true };
  }
  const bound = scope.lets.get(identifier);
  if (bound === FAILED) throw new QuietError(identifier);
  if (bound === undefined) throw new Error(`unchecked name ${identifier}`); // parse.ts lets none through
  if (bound.decided) scope.decidedSeen = true;
  return bound;
}

async function member(node: Extract<Node, { type: 'member' }>, scope: EvalScope, missing: Missing): Promise<Value> {
  const key = await evaluate(node.property, scope, missing);
  if (typeof key.value !== 'string' && typeof key.value !== 'number') {
    throw new HelperError(`${node.text}: a property name must be a string or a number`);
  }
  const property = String(key.value);
  if (FORBIDDEN_PROPERTIES.has(property)) throw new HelperError(`${node.text}: ${property} is not data`);

  if (node.object.type === 'name' && node.object.name === 'env') {
    const value = scope.env(property, key.taint !== undefined);
    if (value === undefined) {
      // A name that a secret gave is not quoted: the message would show the secret.
      missing.push(key.taint !== undefined ? 'env[…]' : /^[A-Za-z_][A-Za-z0-9_]*$/.test(property) ? `env.${property}` : `env[${JSON.stringify(property)}]`);
      // Which names are unset is no secret: validate lists them.
      return decidedBy(scope, { value: undefined, outside: true }, key);
    }
    return decidedBy(scope, { value, taint: { own: [value], parents: [] }, outside: true }, key);
  }
  const object = await evaluate(node.object, scope, missing);
  if (object.value === undefined || object.value === null) {
    // Whatever made the object missing was recorded where it happened; a name that is absent
    // as a whole (cluster without provideClusterInfo, steps in a step's own request) is recorded here.
    if (node.object.type === 'name') missing.push(node.object.name);
    return decidedBy(scope, { value: undefined, ...from([object]) }, key);
  }
  const container = object.value;
  if (container instanceof Placeholder) {
    const step = key.taint !== undefined ? '[...]' : /^[A-Za-z_][A-Za-z0-9_]*$/.test(property) ? `.${property}` : `[${JSON.stringify(property)}]`;
    return decidedBy(scope, { value: new Placeholder(container.text + step), ...from([object]), taint: joinTaints([MARK, object.taint]) }, key);
  }
  let value: unknown;
  if (Array.isArray(container)) {
    const index = typeof key.value === 'number' ? key.value : /^(0|[1-9]\d*)$/.test(property) ? Number(property) : NaN;
    value = Number.isInteger(index) && index >= 0 && index < container.length ? container[index] : property === 'length' ? container.length : undefined;
  } else if (isPlainObject(container)) {
    value = Object.hasOwn(container, property) ? (container as Record<string, unknown>)[property] : undefined;
  } else {
    throw new HelperError(`${node.text}: ${describe(container)} has no properties to read`);
  }
  if (value === undefined) missing.push(node.text);
  // m[env.X]: the key chose the value.
  return decidedBy(scope, { value, ...from([object]) }, key);
}

async function binary(node: Extract<Node, { type: 'binary' }>, scope: EvalScope, missing: Missing): Promise<Value> {
  if (node.operator !== '??' && node.operator !== '||' && node.operator !== '&&') {
    // Both sides are evaluated before a missing one fails: `env.A + ":" + env.B` names both.
    const left = await evaluateOrMissing(node.left, scope, missing);
    const right = await evaluateOrMissing(node.right, scope, missing);
    const failed = [left, right].find((side) => side instanceof MissingValueError);
    if (failed) throw new MissingValueError([...missing], failed.message);
    return combine(node.operator, left as Value, right as Value, scope, missing);
  }
  const left = await evaluate(node.left, scope, missing);
  if (left.decided) {
    // As for a condition: the right side's errors must not tell what the left side held.
    const [, right] = await both(node.left, node.right, scope, missing, left, node.operator);
    const pick = node.operator === '??' ? left.value === undefined || left.value === null : node.operator === '||' ? !left.value : Boolean(left.value);
    return pick ? chosen(right, left) : left;
  }
  // Which side is the result is decided by the left: its mark goes with either.
  switch (node.operator) {
    case '??':
      if (left.value !== undefined && left.value !== null) return left;
      return chosen(await evaluate(node.right, scope, missing), left);
    case '||':
      return left.value ? left : chosen(await evaluate(node.right, scope, missing), left);
    case '&&':
      return left.value ? chosen(await evaluate(node.right, scope, missing), left) : left;
  }
  throw new Error(`unchecked operator ${node.operator}`);
}

/** Two expressions evaluated whatever the other gives; the first error of either is thrown. */
async function both(a: Node, b: Node, scope: EvalScope, missing: Missing, known?: Value, operator?: string): Promise<[Value, Value]> {
  const settle = async (node: Node): Promise<Value | { error: unknown }> => {
    const before = missing.length;
    try {
      const value = await evaluate(node, scope, missing);
      // A side that reads something unset fails whichever side is used.
      if (value.value === undefined && missing.length > before) return { error: new MissingValueError([...missing], 'a value is missing') };
      return value;
    } catch (error) {
      return { error };
    }
  };
  const first = known ?? (await settle(a));
  const second = await settle(b);
  for (const result of [first, second]) {
    if (!('error' in result)) continue;
    // Named with every value either side found missing.
    if (result.error instanceof MissingValueError) throw new MissingValueError([...missing], result.error.message);
    throw result.error;
  }
  // One side null and the other not, or a list and a string: what uses the result would fail or
  // not as the secret says. For a condition both sides must be of one kind; for `&&`, `||` and `??`
  // (a boolean or text beside text is usual there) neither may be null.
  // `??` and `||` give the right side when the left is missing: a missing left is what they are for.
  const values = operator === '??' || operator === '||' ? [second as Value] : [first as Value, second as Value];
  if (values.some((v) => v.value === undefined || v.value === null)) {
    throw new HelperError('a comparison of secrets chooses here, and one of its sides is null: give each side a value');
  }
  if (known === undefined && kind((first as Value).value) !== kind((second as Value).value)) {
    throw new HelperError(`a comparison of secrets chooses here between ${kind((first as Value).value)} and ${kind((second as Value).value)}: give both sides the same kind of value`);
  }
  return [first as Value, second as Value];
}

function kind(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Placeholder) return 'a string';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** The value, or the error of a missing value that failed it (its names are in `missing`). */
async function evaluateOrMissing(node: Node, scope: EvalScope, missing: Missing): Promise<Value | MissingValueError> {
  try {
    return await evaluate(node, scope, missing);
  } catch (error) {
    if (error instanceof MissingValueError) return error;
    throw error;
  }
}

function combine(operator: string, left: Value, right: Value, scope: EvalScope, missing: Missing): Value {
  // What a step will give is text for now: "Bearer " + steps.login.token renders as "Bearer [steps.login.token]".
  const a = left.value instanceof Placeholder ? String(left.value) : left.value;
  const b = right.value instanceof Placeholder ? String(right.value) : right.value;
  if (operator === '+') {
    for (const side of [a, b]) {
      // JavaScript would write "undefined" into the string: a wrong credential sent to the API.
      if (side === undefined || side === null) throw new MissingValueError([...missing], 'a missing value was turned into text');
      if (typeof side === 'object') throw new HelperError('+ was given an object or a list; wrap it in json(…)');
    }
    if (typeof a === 'number' && typeof b === 'number') return { value: a + b, ...from([left, right]) };
    const x = String(a);
    const y = String(b);
    // Checked before the string is made: a chain of lets doubling a value would reach gigabytes.
    if (x.length + y.length > MAX_VALUE_SIZE) throw new BudgetError('the value exceeds 1 MiB (a template computes values of at most 1 MiB)');
    const value = x + y;
    bounded(value, scope);
    return { value, ...from([left, right]) };
  }
  // A comparison's result is decided by both sides.
  let value: boolean;
  switch (operator) {
    case '===':
      value = a === b;
      break;
    case '!==':
      value = a !== b;
      break;
    case '==':
      value = looseEqual(a, b);
      break;
    case '!=':
      value = !looseEqual(a, b);
      break;
    default:
      value = compare(operator, a, b);
  }
  return decidedBy(scope, { value }, left, right);
}

/** `==` without JavaScript's object coercions: null and undefined alike, else strict. */
function looseEqual(a: unknown, b: unknown): boolean {
  if ((a === undefined || a === null) && (b === undefined || b === null)) return true;
  if (typeof a === 'number' && typeof b === 'string') return a === Number(b);
  if (typeof a === 'string' && typeof b === 'number') return Number(a) === b;
  return a === b;
}

function compare(operator: string, a: unknown, b: unknown): boolean {
  const ok = (v: unknown) => typeof v === 'number' || typeof v === 'string';
  if (!ok(a) || !ok(b)) throw new HelperError(`${operator} compares numbers or strings only`);
  const x = a as number | string;
  const y = b as number | string;
  switch (operator) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    default:
      return x >= y;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'object') return 'that value';
  return `a ${typeof value}`;
}

/** Every string and number of a value in text form (a JWK's fields), each object walked once. */
function texts(value: unknown, scope: EvalScope): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    tick(scope);
    if (typeof item === 'string' || typeof item === 'number') found.push(String(item));
    else if (typeof item === 'object' && item !== null && !seen.has(item)) {
      seen.add(item);
      for (const child of Object.values(item)) stack.push(child);
    }
  }
  return found;
}
