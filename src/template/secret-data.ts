// Data a helper computed from a secret (fromJson(env.CFG)) is secret throughout: its strings and
// numbers are registered wherever a part of it is used, as a server may echo any one alone.
import { Placeholder, tick, type EvalScope } from './evaluate-value.js';

/**
 * The objects and lists a helper computed from a secret (fromJson(env.CFG)), and those read out of
 * them: data that is secret throughout. An object literal around them is not: its own strings are
 * text of the config.
 */
export const SECRET_DATA = new WeakSet<object>();

/** The strings and numbers of the secret data within a value. */
export function secretLeaves(value: unknown, scope: EvalScope): string[] {
  const found: string[] = [];
  walk(value, scope, (item) => {
    if (typeof item !== 'object' || item === null || item instanceof Placeholder) return [];
    if (!SECRET_DATA.has(item)) return Object.values(item);
    for (const text of texts(item, scope)) found.push(text);
    return [];
  });
  return found;
}

/** Every string and number of a value in text form (a JWK's fields). */
export function texts(value: unknown, scope: EvalScope): string[] {
  const found: string[] = [];
  walk(value, scope, (item) => {
    if (typeof item === 'string' || typeof item === 'number') found.push(String(item));
    return typeof item === 'object' && item !== null ? Object.values(item) : [];
  });
  return found;
}

/** Visits a value and what `visit` gives of each item to walk next, each object once, a step of the budget each. */
function walk(value: unknown, scope: EvalScope, visit: (item: unknown) => unknown[]): void {
  const seen = new Set<object>();
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    tick(scope);
    if (typeof item === 'object' && item !== null) {
      if (seen.has(item)) continue;
      seen.add(item);
    }
    for (const child of visit(item)) stack.push(child);
  }
}
