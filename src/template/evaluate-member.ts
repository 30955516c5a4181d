// Member access as the evaluator reads it: own properties of plain data only, `env` read by name,
// and the failures of a member whose object is missing or no data (evaluate.ts's member()).
import type { Node } from './parse.js';
import { HelperError } from './helper-error.js';
import { chosen, decidedBy, from, type EvalScope, type Missing, type Value } from './evaluate-value.js';

/** m[key] where m is missing: missing whatever the key holds. */
export function absentObject(
  node: Extract<Node, { type: 'member' }>,
  object: Value,
  key: Value,
  scope: EvalScope,
  missing: Missing,
): Value {
  // Whatever made the object missing was recorded where it happened; a name that is absent
  // as a whole (cluster without provideClusterInfo, steps in a step's own request) is recorded here.
  if (node.object.type === 'name') missing.push(node.object.name);
  const result: Value = { value: undefined, ...from([object]) };
  if (object.decided || key.taint === undefined) return decidedBy(scope, result, key);
  // Missing for every value of a secret key, so not withheld: validate fails where every run does
  // (`vars.nope[env.K]`). Its taint is the key's: a default after it is a test of the secret, withheld.
  scope.decidedSeen = true;
  return chosen(result, key);
}

export function propertyName(node: Extract<Node, { type: 'member' }>): HelperError {
  return new HelperError(`${node.text}: a property name must be a string or a number`);
}

export function notData(node: Extract<Node, { type: 'member' }>, container: unknown): HelperError {
  return new HelperError(`${node.text}: ${describe(container)} has no properties to read`);
}

/** `env` itself, whose members are read by name (scope.env), never evaluated as a value. */
export function isEnv(node: Node): boolean {
  return node.type === 'name' && node.name === 'env';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'object') return 'that value';
  return `a ${typeof value}`;
}
