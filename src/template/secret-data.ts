// Data a helper computed from a secret (fromJson(env.CFG)) is secret throughout: its strings and
// numbers are registered wherever a part of it is used, as a server may echo any one alone.
import { Placeholder, tick, type EvalScope } from './evaluate-value.js';

/**
 * The objects and lists a helper computed from a secret (fromJson(env.CFG)), and those read out of
 * them: data that is secret throughout. An object literal around them is not: its own strings are
 * text of the config.
 */
export const SECRET_DATA = new WeakSet<object>();

/** The strings and numbers of the secret data within a value, each object walked once. */
export function secretLeaves(value: unknown, scope: EvalScope): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    tick(scope);
    if (typeof item !== 'object' || item === null || item instanceof Placeholder || seen.has(item)) continue;
    seen.add(item);
    if (SECRET_DATA.has(item)) for (const text of texts(item, scope)) found.push(text);
    else for (const child of Object.values(item)) stack.push(child);
  }
  return found;
}

/** Every string and number of a value in text form (a JWK's fields), each object walked once. */
export function texts(value: unknown, scope: EvalScope): string[] {
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
