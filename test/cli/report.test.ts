// What --verbose adds to a failure: for a bug (exit 1), the stack and its causes, every line through
// the redactor; for an ordinary failure (exit 2, 3, 4), nothing.
import { describe, expect, it } from 'vitest';
import { ConfigError, RequestError, ResponseError, UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { reporter, stackOf } from '../../src/cli/report.js';

const SECRET = 'p@ssw0rd-very-secret';

function parseError(text: string): SyntaxError {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
  throw new Error('parsed');
}

describe('stackOf', () => {
  it('shows a SyntaxError cause by its frames only: its message quotes a piece of the text', () => {
    const cause = parseError(`${SECRET.slice(0, 10)}`);
    expect(cause.message).toContain('p@ssw0rd-v');
    const stack = stackOf(new RequestError('REQUEST', 'outer', { cause }));
    expect(stack).toContain(
      '\ncaused by: SyntaxError: (message not shown: it may quote the text it could not parse)\n    at ',
    );
    expect(stack).not.toContain('p@ssw0rd');
  });

  it('ends on a chain of causes that loops back on itself', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(stackOf(new RequestError('REQUEST', 'outer', { cause: a })).split('caused by:')).toHaveLength(33);
  });

  it('keeps the message of any other cause', () => {
    const stack = stackOf(new RequestError('REQUEST', 'outer', { cause: new Error('socket hang up') }));
    expect(stack).toMatch(/^RequestError: outer\n {4}at [^]*\ncaused by: Error: socket hang up\n {4}at /);
  });
});

/** A reporter writing into `lines`, with a clock that tests may move. */
function capture(redactor: Redactor, clock = { now: 0 }) {
  const lines: string[] = [];
  const deps = { redactor, stderr: (text: string) => void lines.push(text), now: () => clock.now };
  return { lines, ...reporter(deps as unknown as Parameters<typeof reporter>[0]) };
}

describe('the report of a failure under --verbose', () => {
  it('redacts every form of a secret in the message, the stack and the causes', () => {
    const redactor = new Redactor();
    redactor.add(SECRET);
    const { lines, failure } = capture(redactor);
    const cause = new Error(`GET /x/${encodeURIComponent(SECRET.toUpperCase())}`);
    const code = failure(new TypeError(`failed for ${Buffer.from(SECRET).toString('base64url')}`, { cause }), true);
    expect(code).toBe(1);
    const text = lines.join('');
    expect(text).toMatch(
      /^webapi-credential: internal error, please report it: failed for \[REDACTED\]\nwebapi-credential: TypeError: failed for \[REDACTED\]\n/,
    );
    expect(text).toContain('\n  caused by: Error: GET /x/[REDACTED]\n');
    expect(text.toLowerCase()).not.toContain('ssw0rd');
  });

  it.each<[string, Error, number]>([
    [
      'a request error',
      new RequestError('HTTP_STATUS', 'the token API answered 404 Not Found', { cause: new Error('inner') }),
      3,
    ],
    [
      'an answer error',
      new ResponseError('RESPONSE_NOT_JSON', 'the token API answered 200 with a body that is not JSON'),
      4,
    ],
    ['a usage error', new UsageError('FLAG_INVALID', '--timeout: expected a duration'), 2],
  ])('adds no stack to %s: its one line is all', (_name, error, code) => {
    const { lines, failure } = capture(new Redactor());
    expect(failure(error, true)).toBe(code);
    expect(lines).toEqual([`webapi-credential: ${error.message}\n`]);
  });
});

describe('the report of a failure never throws', () => {
  // Redaction looks at the deadline every few thousand steps: an echo this long takes many.
  const ECHO = 'z'.repeat(100_000);
  const withSecret = () => {
    const redactor = new Redactor();
    redactor.add(SECRET);
    return redactor;
  };

  it.each<[string, Error, number, string]>([
    [
      'a request error',
      new RequestError('HTTP_STATUS', `answered 400: ${SECRET} ${ECHO}`),
      3,
      'the request failed (HTTP_STATUS)',
    ],
    [
      'an answer error',
      new ResponseError('RESPONSE_NOT_OBJECT', `saw ${SECRET} ${ECHO}`),
      4,
      "the token API's answer is unusable (RESPONSE_NOT_OBJECT)",
    ],
    [
      'a config error',
      new ConfigError([{ path: 'x', message: SECRET }], ECHO),
      2,
      'the command line or the config is invalid (CONFIG_INVALID)',
    ],
    ['an internal error', new TypeError(`${SECRET} ${ECHO}`), 1, 'internal error, please report it'],
  ])(
    'prints one fixed line with the exit code of %s whose message cannot be checked in time',
    (_name, error, code, kind) => {
      // The use case's deadline has passed, and a clock that has moved a second on at every look: the
      // report's budget is spent at once.
      let time = 0;
      const redactor = withSecret();
      redactor.setDeadline(() => true);
      const { lines, failure } = capture(redactor, {
        get now() {
          return (time += 1_000);
        },
      });
      expect(failure(error, true)).toBe(code);
      expect(lines).toEqual([
        `webapi-credential: ${kind}; its message is not shown: it could not be checked for secrets in time\n`,
        // Only a bug has a stack to show.
        ...(code === 1
          ? ['webapi-credential: (the stack is not shown: it could not be checked for secrets in time)\n']
          : []),
      ]);
    },
  );

  it('prints the message when the report has time, even though the use case ran out of it', () => {
    const redactor = withSecret();
    const { lines, failure } = capture(redactor);
    // The use case's deadline has passed: a long text is not shown...
    redactor.setDeadline(() => true);
    expect(redactor.redact(`x ${SECRET} ${ECHO}`)).toBe('[not shown: it could not be checked for secrets in time]');
    // ...but the report has a budget of its own.
    expect(failure(new RequestError('DEADLINE', `no answer for ${SECRET} ${ECHO}`), false)).toBe(3);
    expect(lines).toEqual([`webapi-credential: no answer for [REDACTED] ${ECHO}\n`]);
  });

  it('prints the message of a run without a deadline (validate, render) however long the report takes', () => {
    // The 1 MiB bounds keep that work linear and bounded; a config error is worth showing whole.
    let time = 0;
    const { lines, failure } = capture(withSecret(), {
      get now() {
        return (time += 1_000);
      },
    });
    expect(
      failure(new UsageError('TEMPLATE_TOO_LARGE', `webAPIProviderConfig.form.f1: ${SECRET} too large`), false),
    ).toBe(2);
    expect(lines).toEqual(['webapi-credential: webAPIProviderConfig.form.f1: [REDACTED] too large\n']);
  });

  it('keeps the exit code when the message cannot be made (RangeError)', () => {
    const { lines, failure } = capture(withSecret());
    const error = new ResponseError('RESPONSE_TOO_DEEP', 'x');
    // What building a line longer than Node's longest string throws.
    Object.defineProperty(error, 'message', {
      get: () => {
        throw new RangeError('Invalid string length');
      },
    });
    expect(failure(error, false)).toBe(4);
    expect(lines).toEqual([
      "webapi-credential: the token API's answer is unusable (RESPONSE_TOO_DEEP); its message is not shown: it could not be checked for secrets\n",
    ]);
  });

  it('keeps the exit code when stderr itself throws', () => {
    const deps = {
      redactor: withSecret(),
      now: () => 0,
      stderr: () => {
        throw new Error('EPIPE');
      },
    };
    expect(reporter(deps as unknown as Parameters<typeof reporter>[0]).failure(new ResponseError('X', 'y'), true)).toBe(
      4,
    );
  });
});
