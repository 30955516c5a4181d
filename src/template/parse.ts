// Template text -> literal parts and checked expression trees. jsep parses JavaScript expression
// syntax; check() keeps exactly the constructs of SPEC "Templates" and refuses everything else with
// a message that names it, so a config is data: nothing here or in evaluate.ts can reach the runtime.
import jsep from 'jsep';
import jsepObject from '@jsep-plugin/object';
import { HELPER_NAMES, helperNamed } from './helpers.js';
import { translation } from './placeholders.js';

jsep.plugins.register(jsepObject);
// `??` as in JavaScript: below `&&`, at the level of `||`.
jsep.addBinaryOp('??', 1);
// jsep knows more than we allow (bitwise, arithmetic): they parse, and check() names them.

export type Node =
  | { type: 'literal'; value: string | number | boolean | null }
  | { type: 'array'; items: Node[] }
  | { type: 'object'; entries: Array<[string, Node]> }
  | { type: 'name'; name: string }
  | { type: 'member'; object: Node; property: Node; text: string }
  | { type: 'call'; helper: string; args: Node[] }
  | { type: 'not'; argument: Node }
  | { type: 'binary'; operator: BinaryOperator; left: Node; right: Node }
  | { type: 'conditional'; test: Node; consequent: Node; alternate: Node };

const BINARY = ['+', '??', '||', '&&', '===', '!==', '==', '!=', '<', '<=', '>', '>='] as const;
type BinaryOperator = (typeof BINARY)[number];

export type Part = string | { source: string; node: Node };

/**
 * Calls `visit` on `root` and every node below it, in no particular order. A stack, not recursion,
 * and no spread of a node's children into a call: a config's expressions may nest deeper, and a
 * literal list hold more items, than the call stack takes.
 */
export function eachNode(root: Node, visit: (node: Node) => void): void {
  const stack = [root];
  const push = (nodes: readonly Node[]) => {
    for (const node of nodes) stack.push(node);
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    visit(node);
    switch (node.type) {
      case 'member':
        stack.push(node.object, node.property);
        break;
      case 'array':
        push(node.items);
        break;
      case 'object':
        for (const [, item] of node.entries) stack.push(item);
        break;
      case 'call':
        push(node.args);
        break;
      case 'not':
        stack.push(node.argument);
        break;
      case 'binary':
        stack.push(node.left, node.right);
        break;
      case 'conditional':
        stack.push(node.test, node.consequent, node.alternate);
        break;
      case 'name':
      case 'literal':
        break;
    }
  }
}

/** Names a template may read besides the helpers. `let` names are added per config. */
export const SCOPE_NAMES = ['env', 'vars', 'cluster', 'steps'] as const;

/** Property names that lead from data to the runtime. */
export const FORBIDDEN_PROPERTIES = new Set(['constructor', '__proto__', 'prototype']);

/** A template that cannot be used; the message names the construct, the caller adds the field. */
export class TemplateSyntaxError extends Error {}

/** Splits `text` into literal text and `{{ expression }}` parts, each parsed and checked. */
export function parseTemplate(text: string, names: ReadonlySet<string>): Part[] {
  const parts: Part[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{{', at);
    if (open < 0) {
      parts.push(text.slice(at));
      break;
    }
    if (open > at) parts.push(text.slice(at, open));
    if (text[open + 2] === '%')
      throw new TemplateSyntaxError('{{% %}} statements are not supported: a template holds expressions only');
    const close = closingBraces(text, open + 2);
    if (close < 0) throw new TemplateSyntaxError(`{{ at character ${open + 1} is never closed with }}`);
    const source = text.slice(open + 2, close).trim();
    parts.push({ source, node: parseExpression(source, names) });
    at = close + 2;
  }
  return parts;
}

/**
 * The `}}` that ends an expression: outside string literals and object braces, so that
 * `{{ json({ a: { b: 1 }}) }}` keeps its inner braces.
 */
function closingBraces(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0 && text[i + 1] === '}') return i;
      depth = Math.max(0, depth - 1);
    }
  }
  return -1;
}

/** Parses one expression (a `{{ }}` part or a `let` value) and checks it against the whitelist. */
export function parseExpression(source: string, names: ReadonlySet<string>): Node {
  if (source === '') throw new TemplateSyntaxError('{{ }} holds no expression');
  // Go templates (Helm, External Secrets) write {{ .Env.X }} or {{ .X }}: say what to write here.
  const go = /^\.(Env\.)?([A-Za-z_][A-Za-z0-9_]*)$/.exec(source);
  if (go) {
    throw new TemplateSyntaxError(`{{ ${source} }} is Go template syntax; ${translation(go[2]!, go[1] !== undefined)}`);
  }
  let tree: jsep.Expression;
  try {
    tree = jsep(source);
  } catch (error) {
    if (error instanceof RangeError) throw new TemplateSyntaxError('the expression is nested too deeply');
    // jsep's messages quote at most one character of the source ("Unexpected "=" at character 2").
    throw new TemplateSyntaxError(`{{ ${oneLine(source)} }}: ${(error as Error).message}`);
  }
  let node: Node;
  try {
    node = check(tree, source, names);
  } catch (error) {
    if (error instanceof RangeError) throw new TemplateSyntaxError('the expression is nested too deeply');
    throw error;
  }
  // The evaluator recurses: a tree the parser could still build (a `+` chain of 2 000 terms) would
  // overflow it mid-evaluation. No real template nests past a few dozen levels.
  if (depthOf(node) > MAX_EXPRESSION_DEPTH)
    throw new TemplateSyntaxError(`the expression is nested too deeply (more than ${MAX_EXPRESSION_DEPTH} levels)`);
  return node;
}

const MAX_EXPRESSION_DEPTH = 256;

/** The depth of a checked tree, walked with a stack of its own. */
function depthOf(root: Node): number {
  let deepest = 0;
  const stack: Array<[Node, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > MAX_EXPRESSION_DEPTH) break;
    const below = (child: Node) => stack.push([child, depth + 1]);
    switch (node.type) {
      case 'member':
        below(node.object);
        below(node.property);
        break;
      case 'array':
        for (const item of node.items) below(item);
        break;
      case 'object':
        for (const [, item] of node.entries) below(item);
        break;
      case 'call':
        for (const arg of node.args) below(arg);
        break;
      case 'not':
        below(node.argument);
        break;
      case 'binary':
        below(node.left);
        below(node.right);
        break;
      case 'conditional':
        below(node.test);
        below(node.consequent);
        below(node.alternate);
        break;
      case 'name':
      case 'literal':
        break;
    }
  }
  return deepest;
}

function check(tree: jsep.Expression, source: string, names: ReadonlySet<string>): Node {
  const refuse = (what: string): never => {
    throw new TemplateSyntaxError(`{{ ${oneLine(source)} }}: ${what}`);
  };
  const walk = (node: jsep.Expression, usage: 'value' | 'object' = 'value'): Node => {
    switch (node.type) {
      case 'Literal': {
        const value = (node as jsep.Literal).value;
        if (value instanceof RegExp) return refuse('regular expressions are not supported');
        if (typeof value === 'number' && !Number.isFinite(value)) return refuse('that number is not finite');
        return { type: 'literal', value: value as string | number | boolean | null };
      }
      case 'Identifier': {
        const name = (node as jsep.Identifier).name;
        if (name === 'undefined') return { type: 'literal', value: null };
        if (helperNamed(name)) return refuse(`${name} is a helper: call it, ${name}(…)`);
        if (!names.has(name)) return refuse(unknownName(name, names));
        if (name === 'env' && usage !== 'object')
          return refuse('env can only be read one variable at a time: env.NAME or env["NAME"]');
        return { type: 'name', name };
      }
      case 'MemberExpression': {
        const member = node as jsep.MemberExpression;
        if ((member as { optional?: boolean }).optional)
          return refuse('optional chaining (?.) is not supported; use ?? for a default');
        const object = walk(member.object, 'object');
        let property: Node;
        if (member.computed) property = walk(member.property);
        else property = { type: 'literal', value: (member.property as jsep.Identifier).name };
        if (
          property.type === 'literal' &&
          typeof property.value === 'string' &&
          FORBIDDEN_PROPERTIES.has(property.value)
        ) {
          return refuse(`${property.value} is not data: only the own properties of objects and lists can be read`);
        }
        return { type: 'member', object, property, text: memberText(member) };
      }
      case 'CallExpression': {
        const call = node as jsep.CallExpression;
        if (call.callee.type !== 'Identifier') {
          const method =
            call.callee.type === 'MemberExpression' && !(call.callee as jsep.MemberExpression).computed
              ? ` (${((call.callee as jsep.MemberExpression).property as jsep.Identifier).name})`
              : '';
          return refuse(
            `calling a method${method} is not allowed; only the helpers can be called: ${HELPER_NAMES.join(', ')}`,
          );
        }
        const name = (call.callee as jsep.Identifier).name;
        const helper = helperNamed(name);
        if (!helper) return refuse(`${name}() is not a helper; the helpers are ${HELPER_NAMES.join(', ')}`);
        const args = call.arguments.map((arg) => walk(arg));
        if (args.length < helper.arity[0] || args.length > helper.arity[1]) {
          const [min, max] = helper.arity;
          const expected = min === max ? `${min}` : `${min} to ${max}`;
          return refuse(`${name}() takes ${expected} argument${max === 1 ? '' : 's'}, given ${args.length}`);
        }
        return { type: 'call', helper: name, args };
      }
      case 'ArrayExpression':
        return {
          type: 'array',
          items: (node as jsep.ArrayExpression).elements.map((item) =>
            item ? walk(item) : refuse('a list with a hole'),
          ),
        };
      case 'ObjectExpression': {
        const entries: Array<[string, Node]> = [];
        for (const property of (
          node as unknown as {
            properties: Array<{
              type: string;
              computed?: boolean;
              shorthand?: boolean;
              key: jsep.Expression;
              value?: jsep.Expression;
            }>;
          }
        ).properties) {
          if (property.type !== 'Property' || property.computed) return refuse('object keys must be names or strings');
          const key =
            property.key.type === 'Identifier'
              ? (property.key as jsep.Identifier).name
              : (property.key as jsep.Literal).value;
          if (typeof key !== 'string' && typeof key !== 'number') return refuse('object keys must be names or strings');
          if (FORBIDDEN_PROPERTIES.has(String(key))) return refuse(`${String(key)} cannot be an object key`);
          const value = property.shorthand || !property.value ? walk(property.key) : walk(property.value);
          entries.push([String(key), value]);
        }
        return { type: 'object', entries };
      }
      case 'UnaryExpression': {
        const unary = node as jsep.UnaryExpression;
        if (unary.operator === '!') return { type: 'not', argument: walk(unary.argument) };
        // A negative number is written with a minus; that is a literal, not arithmetic.
        if (
          unary.operator === '-' &&
          unary.argument.type === 'Literal' &&
          typeof (unary.argument as jsep.Literal).value === 'number'
        ) {
          return { type: 'literal', value: -((unary.argument as jsep.Literal).value as number) };
        }
        return refuse(`the operator ${unary.operator} is not supported`);
      }
      case 'BinaryExpression': {
        const binary = node as jsep.BinaryExpression;
        if (!(BINARY as readonly string[]).includes(binary.operator))
          return refuse(
            `the operator ${binary.operator} is not supported; the operators are ${BINARY.join(' ')} ! and c ? a : b`,
          );
        return {
          type: 'binary',
          operator: binary.operator as BinaryOperator,
          left: walk(binary.left),
          right: walk(binary.right),
        };
      }
      case 'ConditionalExpression': {
        const conditional = node as jsep.ConditionalExpression;
        return {
          type: 'conditional',
          test: walk(conditional.test),
          consequent: walk(conditional.consequent),
          alternate: walk(conditional.alternate),
        };
      }
      case 'ThisExpression':
        return refuse('this is not supported');
      case 'Compound': {
        const body = (node as jsep.Compound).body;
        if (body[0]?.type === 'Identifier' && (body[0] as jsep.Identifier).name === 'new')
          return refuse('new is not supported');
        return refuse('one expression per {{ }}: a comma or a second expression is not supported');
      }
      default:
        return refuse(`${node.type} is not supported`);
    }
  };
  return walk(tree);
}

/** The most names a message lists: every unknown name of 20 000 templates naming 20 000 lets was quadratic. */
const NAMES_LISTED = 12;

function unknownName(name: string, names: ReadonlySet<string>): string {
  const listed: string[] = [];
  for (const known of names) {
    if (listed.length === NAMES_LISTED) break;
    listed.push(known);
  }
  const known = listed.join(', ') + (names.size > NAMES_LISTED ? ` and ${names.size - NAMES_LISTED} more` : '');
  if (/^[A-Z][A-Z0-9_]*$/.test(name)) return `unknown name ${name}; an environment variable is read as env.${name}`;
  if (name === 'process' || name === 'globalThis' || name === 'global' || name === 'require' || name === 'Function') {
    return `${name} is not available: a template reads only ${known} and calls the helpers`;
  }
  return `unknown name ${name}; a template reads ${known} and calls the helpers ${HELPER_NAMES.join(', ')}`;
}

function memberText(member: jsep.MemberExpression): string {
  const parts: string[] = [];
  let node: jsep.Expression = member;
  while (node.type === 'MemberExpression') {
    const m = node as jsep.MemberExpression;
    if (m.computed) {
      const literal = m.property.type === 'Literal' ? (m.property as jsep.Literal).value : undefined;
      parts.unshift(
        typeof literal === 'string' || typeof literal === 'number' ? `[${JSON.stringify(literal)}]` : '[…]',
      );
    } else parts.unshift(`.${(m.property as jsep.Identifier).name}`);
    node = m.object;
  }
  return baseText(node) + parts.join('');
}

/** What a member path starts from: a name, a helper's result `fromJson(…)`, or any other value `(…)`. */
function baseText(node: jsep.Expression): string {
  if (node.type === 'Identifier') return (node as jsep.Identifier).name;
  const callee = node.type === 'CallExpression' ? (node as jsep.CallExpression).callee : undefined;
  return callee?.type === 'Identifier' ? `${(callee as jsep.Identifier).name}(…)` : '(…)';
}

export function oneLine(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}
