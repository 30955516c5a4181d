// Walks a checked expression tree (parse.ts). Values carry their taint: whatever is read from env,
// file() or a step, and whatever is computed or chosen from one, is secret, and the renderer
// registers it with the redactor where it is used. Every value is bounded (MAX_VALUE_SIZE) and so is
// the work of a pass (Budget). Member access reads own properties of plain data only.
import { FORBIDDEN_PROPERTIES, type Node } from './parse.js';
import { HelperError } from './helper-error.js';
import { helperNamed } from './helpers.js';
import { combine } from './evaluate-operators.js';
import { absentObject, isEnv, isPlainObject, notData, propertyName } from './evaluate-member.js';
import { SECRET_DATA, secretLeaves, texts } from './secret-data.js';
import {
  bounded,
  chosen,
  decidedBy,
  stepChosen,
  tested,
  textNode,
  withheld,
  FAILED,
  SECRET_DECIDES,
  from,
  joinTaints,
  MARK,
  MissingValueError,
  Placeholder,
  QuietError,
  tick,
  type EvalScope,
  type Missing,
  type Taint,
  type Value,
} from './evaluate-value.js';

export async function evaluate(node: Node, scope: EvalScope, missing: Missing): Promise<Value> {
  tick(scope);
  switch (node.type) {
    case 'literal':
      return { value: node.value };
    case 'array': {
      const items: Value[] = [];
      for (const item of node.items) items.push(await evaluate(item, scope, missing));
      // JSON and jwt() would drop it without a word: a claim or a list item that never reaches the API.
      if (items.some((i) => i.value === undefined))
        throw new MissingValueError([...missing], 'a list was given a missing value');
      const value = items.map((i) => i.value);
      bounded(value, scope);
      return { value, ...from(items) };
    }
    case 'object': {
      const object: Record<string, unknown> = {};
      const entries: Value[] = [];
      for (const [key, item] of node.entries) {
        const value = await evaluate(item, scope, missing);
        if (value.value === undefined)
          throw new MissingValueError([...missing], `{ ${key}: … } was given a missing value`);
        Object.defineProperty(object, key, {
          value: value.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
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
      const argument = tested(scope, await evaluate(node.argument, scope, missing));
      return chosen({ value: !argument.value }, argument);
    }
    case 'conditional': {
      const test = tested(scope, await evaluate(node.test, scope, missing));
      if (!test.decided)
        return chosen(await evaluate(test.value ? node.consequent : node.alternate, scope, missing), test);
      // A comparison of secrets chose the branch: both are evaluated, so that an error of one (a
      // missing value, a file that cannot be read) does not tell which one it chose.
      const [yes, no] = await both(node.consequent, node.alternate, scope, missing);
      if (scope.withhold) return withheld(chosen(yes, no, test));
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
  if (args.some((a) => a.value instanceof Placeholder)) {
    // A path a secret will choose (file({ admin: …, user: … }[steps.login.role])), not read yet: as for env (withheldMember).
    const path = args[0]!;
    if (helper.path && path.value instanceof Placeholder && (path.decided || path.value.stepChosen))
      scope.namedBySecret('file');
    return {
      value: new Placeholder(`${node.helper}(...)`),
      ...from(args),
      taint: joinTaints([MARK, ...args.map((a) => a.taint)]),
    };
  }
  let context = scope.context;
  if (helper.path) {
    // A path written in the config means its directory; one from env or vars, the current one. A
    // path a secret chose is not named in a message: which file failed would tell the secret.
    const path = args[0]!;
    context = {
      ...context,
      readFile: (p) => scope.context.readFile(p, !path.outside, path.decided === true),
      pathTried: (p) => scope.context.pathTried?.(p, !path.outside) ?? p,
      pathShown: !path.decided,
    };
  }
  const result = await helper.call(
    args.map((a) => a.value),
    context,
  );
  bounded(result, scope);
  if (helper.path) {
    // The content is the secret, not the path (SPEC: file() paths are not secret).
    return {
      value: result,
      taint: { own: typeof result === 'string' ? [result] : [], parents: [] },
      decided: args[0]!.decided,
      outside: true,
    };
  }
  const marks = from(args);
  if (!helper.secret && marks.taint === undefined) return { value: result, ...marks };
  // The helper's result is registered where it is used, with the forms a server may echo (the
  // base64 of a basicAuth pair) and the arguments that are secret wherever they go (a jwt() key).
  // What a secret decided (an argument a comparison chose, and so the result) is registered apart
  // from what was read (Taint.chosen).
  const own: string[] = [];
  const chosen: string[] = [];
  const made = marks.decided ? chosen : own;
  if (typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean')
    made.push(String(result));
  // Secret data given whole (json(fromJson(env.CFG)), jwt(claims read from a file)): each of its
  // strings and numbers is sent, and a server may echo any one alone, as it would one read by a member.
  for (const arg of args)
    if (arg.taint !== undefined && typeof arg.value === 'object')
      for (const text of secretLeaves(arg.value, scope)) (arg.decided ? chosen : own).push(text);
  if (typeof result === 'object' && result !== null) SECRET_DATA.add(result);
  if (helper.forms) made.push(...helper.forms(result));
  for (const index of helper.secretArgs ?? [])
    if (index < args.length)
      for (const text of texts(args[index]!.value, scope)) (args[index]!.decided ? chosen : own).push(text);
  const parents = args.map((a) => a.taint).filter((t): t is Taint => t !== undefined);
  return { value: result, ...marks, taint: { own, ...(chosen.length > 0 ? { chosen } : {}), parents } };
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
  if (key.value instanceof Placeholder && key.value.boolean) throw propertyName(node);
  // A key not known yet (a step's answer before the steps run, a value a secret decided, withheld):
  // what it reads is not known either, and no miss may tell it.
  if (key.value instanceof Placeholder) return withheldMember(node, key, scope, missing);
  if (typeof key.value !== 'string' && typeof key.value !== 'number') throw propertyName(node);
  const property = String(key.value);
  if (FORBIDDEN_PROPERTIES.has(property)) throw new HelperError(`${node.text}: ${property} is not data`);

  if (isEnv(node.object)) {
    const value = scope.env(property, key.taint !== undefined);
    if (value === undefined) {
      // Which names the config gives that are unset is no secret: validate lists them. Whether the
      // name a secret gives is set tells the secret (env[env.S] is set for S = "HOME" only), so that
      // miss is not recorded: beside another unset value the message would differ (the value is
      // withheld, or decided, all the same).
      if (key.taint === undefined)
        missing.push(
          /^[A-Za-z_][A-Za-z0-9_]*$/.test(property) ? `env.${property}` : `env[${JSON.stringify(property)}]`,
        );
      return decidedBy(scope, { value: undefined, outside: true }, key);
    }
    return decidedBy(scope, { value, taint: { own: [value], parents: [] }, outside: true }, key);
  }
  const object = await evaluate(node.object, scope, missing);
  if (object.value === undefined || object.value === null) return absentObject(node, object, key, scope, missing);
  const container = object.value;
  if (container instanceof Placeholder) {
    // steps.login[env.S] reads `steps.login[...]` whatever S holds: the key decides it only once the steps ran.
    if (key.taint !== undefined) return stepChosen(scope, `${container.text}[...]`, object, key);
    const step = /^[A-Za-z_][A-Za-z0-9_]*$/.test(property) ? `.${property}` : `[${JSON.stringify(property)}]`;
    return {
      value: new Placeholder(container.text + step, container.stepChosen),
      ...from([object]),
      taint: joinTaints([MARK, object.taint]),
    };
  }
  let value: unknown;
  if (Array.isArray(container)) {
    const index = typeof key.value === 'number' ? key.value : /^(0|[1-9]\d*)$/.test(property) ? Number(property) : NaN;
    value =
      Number.isInteger(index) && index >= 0 && index < container.length
        ? container[index]
        : property === 'length'
          ? container.length
          : undefined;
  } else if (isPlainObject(container)) {
    value = Object.hasOwn(container, property) ? (container as Record<string, unknown>)[property] : undefined;
  } else {
    throw notData(node, container);
  }
  // A miss a secret decided (by the key, or by choosing the object) is not recorded, as for env
  // above: "env.UNSET is not set" for one value of S and the message that names nothing for the
  // others would tell whether S is a key of m (m[env.S] + env.UNSET).
  if (value === undefined && key.taint === undefined && !object.decided) missing.push(node.text);
  if (SECRET_DATA.has(container) && typeof value === 'object' && value !== null) SECRET_DATA.add(value);
  const marks = from([object]);
  // A number or boolean read out of secret data is a secret in its text form (fromJson(env.CFG).pin
  // inside "user:" + …), as a step answer's are; registered where it reaches a secret field. A step's
  // answer (MARK) is registered whole by the steps already.
  if (marks.taint !== undefined && marks.taint !== MARK)
    marks.taint = textNode(
      typeof value === 'number' || typeof value === 'boolean' ? [String(value)] : [],
      marks.decided,
      [marks.taint],
      true,
    );
  else if (marks.taint !== undefined && (typeof value === 'number' || typeof value === 'boolean'))
    marks.taint = textNode([String(value)], marks.decided, [marks.taint]);
  // m[env.X]: the key chose the value.
  return decidedBy(scope, { value, ...marks }, key);
}

/**
 * m[key] where the key is a placeholder: a step's answer (`m[steps.login.role]`, read before the
 * steps run and by validate) or a value a secret decided, withheld (validate, render). The result is
 * one too, decided by the key (a step's answer is secret). The object does not depend on the key, so
 * it is evaluated all the same: where it is missing or not data, every run fails, for every value of
 * the key (`fromJson(env.CFG)[…]` with env.CFG unset), and validate says so.
 */
async function withheldMember(
  node: Extract<Node, { type: 'member' }>,
  key: Value,
  scope: EvalScope,
  missing: Missing,
): Promise<Value> {
  if (isEnv(node.object)) {
    // The name is a secret's, though not known yet: a cache key without the variable would serve
    // the credential its old value got (env[steps.login.variable]).
    scope.namedBySecret('env');
    return key.decided ? withheld(key) : stepChosen(scope, SECRET_DECIDES, key);
  }
  const object = await evaluate(node.object, scope, missing);
  if (object.value === undefined || object.value === null) return absentObject(node, object, key, scope, missing);
  const container = object.value;
  if (!(container instanceof Placeholder) && !Array.isArray(container) && !isPlainObject(container))
    throw notData(node, container);
  // A key a secret decided, withheld; else a step's answer, the same placeholder for every answer
  // until the steps run (a URL host it gives is no URL for any answer: validate says so as get-token does).
  if (key.decided) {
    // As decidedBy: a failure after it may be one the key chose (a placeholder is always a secret's).
    scope.decidedSeen = true;
    return withheld(chosen(object, key));
  }
  return stepChosen(scope, SECRET_DECIDES, object, key);
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
  const left = tested(scope, await evaluate(node.left, scope, missing));
  if (left.decided) {
    // As for a condition: the right side's errors must not tell what the left side held.
    const [, right] = await both(node.left, node.right, scope, missing, left, node.operator);
    if (scope.withhold) return withheld(chosen(right, left));
    const pick =
      node.operator === '??'
        ? left.value === undefined || left.value === null
        : node.operator === '||'
          ? !left.value
          : Boolean(left.value);
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
async function both(
  a: Node,
  b: Node,
  scope: EvalScope,
  missing: Missing,
  known?: Value,
  operator?: string,
): Promise<[Value, Value]> {
  const settle = async (node: Node): Promise<Value | { error: unknown }> => {
    const before = missing.length;
    try {
      const value = await evaluate(node, scope, missing);
      // A side that reads something unset fails whichever side is used.
      if (value.value === undefined && missing.length > before)
        return { error: new MissingValueError([...missing], 'a value is missing') };
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
    throw new HelperError(
      `a comparison of secrets chooses here between ${kind((first as Value).value)} and ${kind((second as Value).value)}: give both sides the same kind of value`,
    );
  }
  return [first as Value, second as Value];
}

function kind(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Placeholder) return value.boolean ? 'a boolean' : 'a string';
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
