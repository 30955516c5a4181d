// The paths nearly every config uses ($.access_token, $.status.token, $['data'][0]) are singular
// RFC 9535 queries that need no parser: a name or an index per step. Evaluating them here keeps
// json-p3 (~4 ms to load) off the common fetch; anything else still goes to json-p3 (paths.ts).
// test/simple-path.test.ts holds this to the RFC 9535 compliance suite.
import type { Match } from './jsonpath.js';

export type Segment = string | number;

// Deliberately narrower than RFC 9535 allows (ASCII names, no whitespace, no escapes): whatever
// this does not recognise is left to json-p3, never guessed at.
const STEP =
  /\.([A-Za-z_][A-Za-z0-9_]*)|\['([\x20-\x26\x28-\x5b\x5d-\x7e]*)'\]|\["([\x20\x21\x23-\x5b\x5d-\x7e]*)"\]|\[(0|-?[1-9][0-9]{0,15})\]/y;

/** The steps of a simple path, or undefined when the path is anything more. */
export function simpleSegments(path: string): Segment[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const segments: Segment[] = [];
  STEP.lastIndex = 1;
  while (STEP.lastIndex < path.length) {
    const at = STEP.lastIndex;
    const match = STEP.exec(path);
    if (!match || match.index !== at) return undefined;
    const [, dotted, single, double, index] = match;
    if (index !== undefined) {
      const value = Number(index);
      if (!Number.isSafeInteger(value)) return undefined;
      segments.push(value);
    } else segments.push((dotted ?? single ?? double)!);
  }
  return segments;
}

/** The node a simple path selects: none or one. */
export function simpleQuery(segments: Segment[], document: unknown): Match[] {
  let node = document;
  let location = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(node)) return [];
      const index = segment < 0 ? node.length + segment : segment;
      if (index < 0 || index >= node.length) return [];
      node = node[index];
      location += `[${index}]`;
    } else {
      if (
        typeof node !== 'object' ||
        node === null ||
        Array.isArray(node) ||
        !Object.prototype.hasOwnProperty.call(node, segment)
      )
        return [];
      node = (node as Record<string, unknown>)[segment];
      location += /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? `.${segment}` : `['${segment}']`;
    }
  }
  return [{ value: node, location }];
}
