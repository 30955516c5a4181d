// The only importer of json-p3. Paths reach here already normalized by config/validate.ts.
// match() and search() run on a linear-time engine (re2js, a port of RE2): with JavaScript's
// backtracking RegExp, `$.items[?match(@.name, '(a+)+')]` on a 34-character name took 31 s, and a
// synchronous regex cannot be cut at --timeout. The plugin must always end by itself.
import {
  FunctionExpressionType,
  JSONPathEnvironment,
  JSONPathRecursionLimitError,
  type FilterFunction,
  type JSONValue,
} from 'json-p3';
import { RE2JS } from 're2js';

/** RFC 9485 I-Regexp on RE2: `.` matches any character but a line break, as I-Regexp says. */
function toRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else out += c === '.' ? '[^\\n\\r]' : c;
  }
  return out;
}

class LinearRegexFunction implements FilterFunction {
  readonly argTypes = [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType];
  readonly returnType = FunctionExpressionType.LogicalType;
  private readonly cache = new Map<string, RE2JS | null>();

  constructor(private readonly whole: boolean) {}

  call(value: unknown, pattern: unknown): boolean {
    if (typeof value !== 'string' || typeof pattern !== 'string') return false;
    let compiled = this.cache.get(pattern);
    if (compiled === undefined) {
      try {
        compiled = RE2JS.compile(toRe2(pattern));
      } catch {
        // RFC 9535: a pattern that is not a valid regular expression matches nothing.
        compiled = null;
      }
      this.cache.set(pattern, compiled);
    }
    if (compiled === null) return false;
    return this.whole ? compiled.matches(value) : compiled.matcher(value).find();
  }
}

const environment = new JSONPathEnvironment();
environment.functionRegister.set('match', new LinearRegexFunction(true));
environment.functionRegister.set('search', new LinearRegexFunction(false));

export function checkPath(path: string): string | undefined {
  try {
    environment.compile(path);
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).split('\n')[0];
  }
}

export interface Match {
  value: unknown;
  location: string;
}

/** The answer is nested deeper than a path can be followed: exit 4, never a crash. */
export class TooDeep extends RangeError {}

export function queryPath(path: string, document: unknown): Match[] {
  try {
    return environment
      .compile(path)
      .query(document as JSONValue)
      .nodes.map((node) => ({ value: node.value, location: node.getPath() }));
  } catch (error) {
    if (error instanceof JSONPathRecursionLimitError || error instanceof RangeError) throw new TooDeep(path);
    throw error;
  }
}
