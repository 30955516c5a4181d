// A flag's duration, one rule for both routes: the fast path steps aside where the full path refuses.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { durationFlag, positiveDuration } from '../../src/cli/flags.js';
import { caught } from '../helpers/caught.js';

describe('positiveDuration and durationFlag', () => {
  it.each([
    ['10s', 10_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1.5s', 1_500],
  ])('%s is %i ms on both routes', (value, ms) => {
    expect(positiveDuration(value)).toBe(ms);
    expect(durationFlag('--timeout', value)).toBe(ms);
  });

  it.each(['0s', '0.0001ms', 'soon', '10', '-1s', ''])(
    '%j is none: the fast path steps aside, the full path refuses it (exit 2)',
    (value) => {
      expect(positiveDuration(value)).toBeUndefined();
      const error = caught(UsageError, () => durationFlag('--timeout', value));
      expect([error.code, error.message]).toEqual([
        'FLAG_INVALID',
        `--timeout ${JSON.stringify(value)}: expected a positive duration such as 10s, 500ms or 1m30s`,
      ]);
    },
  );
});
