// Walks a checked expression tree (parse.ts). Values carry a taint bit: whatever is read from env,
// file() or a step, and whatever is computed from one, is secret and handed to `secret()` so that
// the redactor knows it. Member access reads own properties of plain data only.
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

export interface Value {
  value: unknown;
  secret: boolean;
}

export interface EvalScope {
  /** env.NAME: undefined when unset or empty. Records the dependency. */
  env: (name: string) => string | undefined;
  vars: Record<string, string>;
  cluster: unknown;
  /** The steps that ran so far (every value secret); a Placeholder when no step runs (render, validate). */
  steps: Record<string, unknown> | Placeholder | undefined;
  lets: ReadonlyMap<string, Value | typeof FAILED>;
  context: HelperContext;
  /** Registers a secret string with the redactor. */
  secret: (text: string) => void;
  /** Marks the value as depending on a volatile helper (now, uuid, jwt). */
  volatile: () => void;
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

export async function evaluate(node: Node, scope: EvalScope, missing: Missing): Promise<Value> {
  switch (node.type) {
    case 'literal':
      return { value: node.value, secret: false };
    case 'array': {
      const items = [];
      for (const item of node.items) items.push(await evaluate(item, scope, missing));
      // JSON and jwt() would drop it without a word: a claim or a list item that never reaches the API.
      if (items.some((i) => i.value === undefined)) throw new MissingValueError([...missing], 'a list was given a missing value');
      return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
    }
    case 'object': {
      const object: Record<string, unknown> = {};
      let secret = false;
      for (const [key, item] of node.entries) {
        const value = await evaluate(item, scope, missing);
        if (value.value === undefined) throw new MissingValueError([...missing], `{ ${key}: … } was given a missing value`);
        Object.defineProperty(object, key, { value: value.value, enumerable: true, writable: true, configurable: true });
        secret ||= value.secret;
      }
      return { value: object, secret };
    }
    case 'name':
      return name(node.name, scope);
    case 'member':
      return member(node, scope, missing);
    case 'call': {
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
      if (args.some((a) => a.value instanceof Placeholder)) return { value: new Placeholder(`${node.helper}(...)`), secret: true };
      const result = await helper.call(
        args.map((a) => a.value),
        scope.context,
      );
      const secret = helper.secret === true || args.some((a) => a.secret);
      if (secret) register(result, scope);
      return { value: result, secret };
    }
    case 'not': {
      const argument = await evaluate(node.argument, scope, missing);
      return { value: !argument.value, secret: argument.secret };
    }
    case 'conditional': {
      const test = await evaluate(node.test, scope, missing);
      return evaluate(test.value ? node.consequent : node.alternate, scope, missing);
    }
    case 'binary':
      return binary(node, scope, missing);
  }
}

function name(identifier: string, scope: EvalScope): Value {
  switch (identifier) {
    case 'vars':
      return { value: scope.vars, secret: false };
    case 'cluster':
      return { value: scope.cluster, secret: false };
    case 'steps':
      return { value: scope.steps, secret: true };
  }
  const bound = scope.lets.get(identifier);
  if (bound === FAILED) throw new QuietError(identifier);
  if (bound === undefined) throw new Error(`unchecked name ${identifier}`); // parse.ts lets none through
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
    const value = scope.env(property);
    if (value === undefined) {
      missing.push(/^[A-Za-z_][A-Za-z0-9_]*$/.test(property) ? `env.${property}` : `env[${JSON.stringify(property)}]`);
      return { value: undefined, secret: true };
    }
    scope.secret(value);
    return { value, secret: true };
  }
  const object = await evaluate(node.object, scope, missing);
  if (object.value === undefined || object.value === null) {
    // Whatever made the object missing was recorded where it happened; a name that is absent
    // as a whole (cluster without provideClusterInfo, steps in a step's own request) is recorded here.
    if (node.object.type === 'name') missing.push(node.object.name);
    return { value: undefined, secret: object.secret };
  }
  const container = object.value;
  if (container instanceof Placeholder) {
    const step = /^[A-Za-z_][A-Za-z0-9_]*$/.test(property) ? `.${property}` : `[${JSON.stringify(property)}]`;
    return { value: new Placeholder(container.text + step), secret: true };
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
  if (object.secret) register(value, scope);
  return { value, secret: object.secret };
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
  switch (node.operator) {
    case '??':
      if (left.value !== undefined && left.value !== null) return left;
      return evaluate(node.right, scope, missing);
    case '||':
      return left.value ? left : evaluate(node.right, scope, missing);
    case '&&':
      return left.value ? evaluate(node.right, scope, missing) : left;
  }
  throw new Error(`unchecked operator ${node.operator}`);
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
  const secret = left.secret || right.secret;
  // What a step will give is text for now: "Bearer " + steps.login.token renders as "Bearer [steps.login.token]".
  const a = left.value instanceof Placeholder ? String(left.value) : left.value;
  const b = right.value instanceof Placeholder ? String(right.value) : right.value;
  switch (operator) {
    case '+': {
      for (const side of [a, b]) {
        // JavaScript would write "undefined" into the string: a wrong credential sent to the API.
        if (side === undefined || side === null) throw new MissingValueError([...missing], 'a missing value was turned into text');
        if (typeof side === 'object') throw new HelperError('+ was given an object or a list; wrap it in json(…)');
      }
      const value = typeof a === 'number' && typeof b === 'number' ? a + b : String(a) + String(b);
      if (secret) register(value, scope);
      return { value, secret };
    }
    case '===':
      return { value: a === b, secret };
    case '!==':
      return { value: a !== b, secret };
    case '==':
      return { value: looseEqual(a, b), secret };
    case '!=':
      return { value: !looseEqual(a, b), secret };
    default:
      return { value: compare(operator, a, b), secret };
  }
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

/** Every string inside a secret value is secret. */
function register(value: unknown, scope: EvalScope, depth = 0): void {
  if (typeof value === 'string') scope.secret(value);
  else if (depth < 64 && typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) register(item, scope, depth + 1);
  }
}
