// get-token's flag values, checked the same way by the commander program and the plain form.
import { UsageError } from '../errors.js';
import { DURATION_PATTERN, parseDuration } from '../config/shape.js';

export const DEFAULT_TIMEOUT = '30s';

export function durationFlag(name: string, value: string): number {
  if (!DURATION_PATTERN.test(value) || parseDuration(value) <= 0) {
    throw new UsageError('FLAG_INVALID', `${name} ${JSON.stringify(value)}: expected a positive duration such as 10s, 500ms or 1m30s`);
  }
  return parseDuration(value);
}
