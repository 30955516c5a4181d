// A tiny description language for the config file. One table (schema.ts) drives both the
// validator and the JSON Schema that ships for editors, so the two cannot drift apart.
import type { ConfigIssue as Issue } from '../errors.js';

export type { Issue };

export type Shape =
  | {
      kind: 'string';
      description?: string;
      minLength?: number;
      pattern?: RegExp;
      patternHint?: string;
      enum?: string[];
    }
  | { kind: 'boolean'; description?: string }
  | { kind: 'integer'; description?: string; minimum?: number; maximum?: number }
  | { kind: 'duration'; description?: string }
  | { kind: 'stringOrList'; description?: string }
  | { kind: 'map'; of: Shape; description?: string }
  | { kind: 'list'; of: Shape; description?: string }
  | { kind: 'object'; properties: Record<string, Shape>; required?: string[]; description?: string }
  | { kind: 'json'; description?: string };

/** Go-style durations as kubectl and client-go print them: 500ms, 10s, 1m30s, 2h. */
export const DURATION_PATTERN = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;

export function parseDuration(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
    total += Number(amount) * factor;
  }
  return Math.round(total);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? 'a string' : `string ${JSON.stringify(value)}`;
    case 'number':
      return `number ${value}`;
    case 'boolean':
      return `boolean ${value}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Levenshtein distance of two lower-cased names: how far a typo is from a field name; Infinity past
 * `limit` (a row whose every cell is past the limit can only grow: that name can be no typo), so 50 000 unknown
 * keys cost a few cells each.
 */
function distance(x: string, y: string, limit: number): number {
  let previous = Array.from({ length: y.length + 1 }, (_, i) => i);
  let row = previous.slice();
  for (let i = 1; i <= x.length; i++) {
    row[0] = i;
    let least = i;
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (row[j]! < least) least = row[j]!;
    }
    if (least > limit) return Infinity;
    [previous, row] = [row, previous];
  }
  return previous[y.length]!;
}

/** The known field a typo most likely meant, if one is close enough. */
export function closest(key: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const folded = key.toLowerCase();
  for (const name of known) {
    // Lengths further apart than a typo can be: no distance to compute (a 1 MiB key cost seconds).
    const limit = Math.max(1, Math.floor(name.length / 4));
    if (Math.abs(key.length - name.length) > limit) continue;
    const d = distance(folded, name.toLowerCase(), limit);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  // Close, and not a rewrite of the whole word (`b` is no typo of `a`).
  return best !== undefined &&
    bestDistance <= Math.max(1, Math.floor(best.length / 4)) &&
    bestDistance < Math.min(key.length, best.length)
    ? best
    : undefined;
}

/**
 * A typo is looked for while fewer than this many problems are known: past it the config is no
 * typo away from right, and 80 000 unknown keys each measured against every name took seconds.
 */
const SUGGEST_WHILE_ISSUES = 1000;

function unknownField(key: string, known: FieldNames, issues: number): string {
  const guess = issues < SUGGEST_WHILE_ISSUES ? closest(key, known.names) : undefined;
  return guess ? `unknown field; did you mean ${guess}?` : known.unknown;
}

/** The field names of an object shape and its "unknown field" message, made once per shape, not per unknown key. */
interface FieldNames {
  names: string[];
  unknown: string;
}
const FIELD_NAMES = new WeakMap<object, FieldNames>();

function fieldNames(properties: Record<string, Shape>): FieldNames {
  let known = FIELD_NAMES.get(properties);
  if (!known) {
    const names = Object.keys(properties);
    FIELD_NAMES.set(properties, (known = { names, unknown: `unknown field (known: ${names.join(', ')})` }));
  }
  return known;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `tokenPath: {.access_token}` (the proposal's JSONPath, unquoted) reads as `{".access_token": null}`:
 * shown back as written, quoted, when that is what it was. Only a key that looks like a path is
 * echoed, never a value: the text could be anything a person pasted.
 */
function asWritten(map: Record<string, unknown>): string {
  const keys = Object.keys(map);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined || map[key] !== null || !/^[.$[][\w.$[\]'"*@-]{0,80}$/.test(key))
    return '';
  return `: "{${key}}"`;
}

/** Checks `value` against `shape`, appending every problem found to `issues`. Pure. */
export function check(shape: Shape, value: unknown, path: string, issues: Issue[]): void {
  const fail = (expected: string): void =>
    void issues.push({ path, message: `expected ${expected}, found ${describe(value)}` });
  switch (shape.kind) {
    case 'string':
      if (isMap(value)) {
        // A map for the raw body is a JSON body meant; anywhere else, a {…} that YAML read as one.
        const hint = path.endsWith('.body')
          ? '; a JSON body is written under json:'
          : `: YAML reads an unquoted {…} as one; quote it${asWritten(value)}`;
        return void issues.push({ path, message: `expected a string, found a map${hint}` });
      }
      if (typeof value !== 'string') return fail('a string');
      if (shape.enum && !shape.enum.includes(value)) return fail(`one of ${shape.enum.join(', ')}`);
      if (shape.minLength !== undefined && value.length < shape.minLength) return fail('a non-empty string');
      if (shape.pattern && !shape.pattern.test(value))
        return fail(shape.patternHint ?? `a string matching ${shape.pattern}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail('true or false');
      return;
    case 'integer': {
      const { minimum: min, maximum: max } = shape;
      const range =
        min !== undefined && max !== undefined
          ? `an integer from ${min} to ${max}`
          : min !== undefined
            ? `an integer of at least ${min}`
            : max !== undefined
              ? `an integer of at most ${max}`
              : 'an integer';
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail(range);
      if (shape.minimum !== undefined && value < shape.minimum) return fail(range);
      if (shape.maximum !== undefined && value > shape.maximum) return fail(range);
      return;
    }
    case 'duration':
      if (typeof value !== 'string' || !DURATION_PATTERN.test(value)) fail('a duration such as 10s, 500ms or 1m30s');
      return;
    case 'stringOrList':
      if (typeof value === 'string') return;
      if (Array.isArray(value) && value.length > 0) {
        value.forEach((item, i) => {
          if (typeof item !== 'string')
            issues.push({ path: `${path}[${i}]`, message: `expected a string, found ${describe(item)}` });
        });
        return;
      }
      return fail('a string or a non-empty list of strings');
    case 'map':
      if (!isPlainObject(value)) return fail('a mapping');
      for (const [key, item] of Object.entries(value)) check(shape.of, item, `${path}.${key}`, issues);
      return;
    case 'list':
      if (!Array.isArray(value)) return fail('a list');
      value.forEach((item, i) => check(shape.of, item, `${path}[${i}]`, issues));
      return;
    case 'object':
      if (!isPlainObject(value)) return fail('a mapping');
      for (const name of shape.required ?? []) {
        if (!(name in value)) issues.push({ path: `${path}.${name}`, message: 'is required' });
      }
      for (const [key, item] of Object.entries(value)) {
        // Own properties only: `constructor` or `__proto__` must not find Object.prototype members.
        const property = Object.hasOwn(shape.properties, key) ? shape.properties[key] : undefined;
        if (property) check(property, item, `${path}.${key}`, issues);
        else {
          const known = fieldNames(shape.properties);
          issues.push({
            path: `${path}.${key}`,
            message: unknownField(key, known, issues.length),
            unknown: { key, known: known.names },
          });
        }
      }
      return;
    case 'json':
      if (!isPlainObject(value) && !Array.isArray(value)) fail('a mapping or a list');
      return;
  }
}

/** The same shape as JSON Schema (draft 2020-12), for editors. */
export function toJsonSchema(shape: Shape): Record<string, unknown> {
  const base = shape.description ? { description: shape.description } : {};
  switch (shape.kind) {
    case 'string':
      return {
        ...base,
        type: 'string',
        ...(shape.enum ? { enum: shape.enum } : {}),
        ...(shape.minLength !== undefined ? { minLength: shape.minLength } : {}),
        ...(shape.pattern ? { pattern: shape.pattern.source } : {}),
      };
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'integer':
      return {
        ...base,
        type: 'integer',
        ...(shape.minimum !== undefined ? { minimum: shape.minimum } : {}),
        ...(shape.maximum !== undefined ? { maximum: shape.maximum } : {}),
      };
    case 'duration':
      return { ...base, type: 'string', pattern: DURATION_PATTERN.source };
    case 'stringOrList':
      return { ...base, oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] };
    case 'map':
      return { ...base, type: 'object', additionalProperties: toJsonSchema(shape.of) };
    case 'list':
      return { ...base, type: 'array', items: toJsonSchema(shape.of) };
    case 'object':
      return {
        ...base,
        type: 'object',
        properties: Object.fromEntries(Object.entries(shape.properties).map(([k, v]) => [k, toJsonSchema(v)])),
        ...(shape.required?.length ? { required: shape.required } : {}),
        additionalProperties: false,
      };
    case 'json':
      return { ...base, type: ['object', 'array'] };
  }
}
