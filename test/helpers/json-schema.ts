// A deliberately tiny JSON Schema checker: only the keywords toJsonSchema emits. An unknown keyword
// throws, so that a new keyword in the generator cannot be silently ignored. Used by
// test/schema.test.ts and by the examples' tests.
import { isDeepStrictEqual } from 'node:util';

export type Schema = Record<string, unknown>;
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description']);
const ASSERTIONS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'pattern',
  'minLength',
  'minimum',
  'maximum',
  'oneOf',
  'items',
  'minItems',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      throw new Error(`unsupported type ${type}`);
  }
}

/** Every failed assertion as `path: keyword`; [] when `value` is valid. */
export function schemaErrors(schema: Schema, value: unknown, path = '$'): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !ASSERTIONS.has(keyword))
      throw new Error(`unsupported keyword ${keyword} at ${path}`);
  }
  const errors: string[] = [];
  const fail = (keyword: string) => errors.push(`${path}: ${keyword}`);
  if (schema['type'] !== undefined) {
    const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [schema['type'] as string];
    if (!types.some((t) => hasType(t, value))) return [`${path}: type`];
  }
  if (schema['enum'] !== undefined && !(schema['enum'] as unknown[]).some((option) => isDeepStrictEqual(option, value)))
    fail('enum');
  if (typeof value === 'string') {
    if (schema['minLength'] !== undefined && [...value].length < (schema['minLength'] as number)) fail('minLength');
    if (schema['pattern'] !== undefined && !new RegExp(schema['pattern'] as string, 'u').test(value)) fail('pattern');
  }
  if (typeof value === 'number') {
    if (schema['minimum'] !== undefined && value < (schema['minimum'] as number)) fail('minimum');
    if (schema['maximum'] !== undefined && value > (schema['maximum'] as number)) fail('maximum');
  }
  if (Array.isArray(value)) {
    if (schema['minItems'] !== undefined && value.length < (schema['minItems'] as number)) fail('minItems');
    if (schema['items'] !== undefined)
      value.forEach((item, i) => errors.push(...schemaErrors(schema['items'] as Schema, item, `${path}[${i}]`)));
  }
  if (isObject(value)) {
    const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
    for (const name of (schema['required'] ?? []) as string[])
      if (!Object.hasOwn(value, name)) fail(`required ${name}`);
    for (const [key, item] of Object.entries(value)) {
      if (Object.hasOwn(properties, key)) errors.push(...schemaErrors(properties[key]!, item, `${path}.${key}`));
      else if (schema['additionalProperties'] === false) fail(`additionalProperties ${key}`);
      else if (isObject(schema['additionalProperties']))
        errors.push(...schemaErrors(schema['additionalProperties'], item, `${path}.${key}`));
    }
  }
  if (schema['oneOf'] !== undefined) {
    const passing = (schema['oneOf'] as Schema[]).filter(
      (branch) => schemaErrors(branch, value, path).length === 0,
    ).length;
    if (passing !== 1) fail('oneOf');
  }
  return errors;
}
