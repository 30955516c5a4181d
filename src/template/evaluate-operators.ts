// The operators of `+` and the comparisons: what a comparison yields is decided by both sides, so a
// secret among them marks the result (decidedBy).
import { HelperError } from './helper-error.js';
import {
  BudgetError,
  bounded,
  decidedBy,
  from,
  MAX_VALUE_SIZE,
  MissingValueError,
  Placeholder,
  textNode,
  type EvalScope,
  type Missing,
  type Value,
} from './evaluate-value.js';

export function combine(operator: string, left: Value, right: Value, scope: EvalScope, missing: Missing): Value {
  // What a step will give is text for now: "Bearer " + steps.login.token renders as "Bearer [steps.login.token]".
  const a = left.value instanceof Placeholder ? String(left.value) : left.value;
  const b = right.value instanceof Placeholder ? String(right.value) : right.value;
  if (operator === '+') {
    for (const side of [a, b]) {
      // JavaScript would write "undefined" into the string: a wrong credential sent to the API.
      if (side === undefined || side === null)
        throw new MissingValueError([...missing], 'a missing value was turned into text');
      if (typeof side === 'object') throw new HelperError('+ was given an object or a list; wrap it in json(…)');
    }
    if (typeof a === 'number' && typeof b === 'number') {
      // A sum of secrets is one in its own right, in text form (an echo of `pin + 1`).
      const marks = from([left, right]);
      const value = a + b;
      return {
        value,
        ...marks,
        ...(marks.taint ? { taint: textNode([String(value)], marks.decided, [marks.taint]) } : {}),
      };
    }
    const x = String(a);
    const y = String(b);
    // Checked before the string is made: a chain of lets doubling a value would reach gigabytes.
    if (x.length + y.length > MAX_VALUE_SIZE)
      throw new BudgetError('the value exceeds 1 MiB (a template computes values of at most 1 MiB)');
    const value = x + y;
    bounded(value, scope);
    // Each secret side in its own right: the renderer registers the whole interpolation, and a server
    // that echoes only the token of `"Bearer " + fromJson(env.CREDS).token` would print it.
    const marks = from([left, right]);
    // A side a secret decided is registered apart from one read (Taint.chosen).
    const sides = [left, right].filter((side) => side.taint !== undefined && typeof side.value === 'string');
    const own = sides.filter((side) => !side.decided).map((side) => side.value as string);
    const chosen = sides.filter((side) => side.decided).map((side) => side.value as string);
    return {
      value,
      ...marks,
      ...(marks.taint && sides.length > 0
        ? { taint: { own, ...(chosen.length > 0 ? { chosen } : {}), parents: [marks.taint] } }
        : {}),
    };
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
  const result = decidedBy(scope, { value }, left, right);
  // Withheld, it is still a boolean: what refuses one refuses it, as every run does (`m[env.S > "m"]`).
  return result.value instanceof Placeholder
    ? { ...result, value: new Placeholder(result.value.text, false, true) }
    : result;
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
