// The templates' bounds, run as a process (issues 17 and 18): a config of a kilobyte that doubles a
// value past 1 MiB, or shares one list between 40 lets, is exit 2 naming the field in validate,
// render and get-token alike, before any network; lists, objects and chains deep or wide enough to
// overflow the main thread's stack are one line, with no trace Node prints itself. The taint of
// values a secret decided is test/template/trust.test.ts (in process).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { allSecrets, expectFailure, provider, writeTemp } from '../helpers/integration.js';

const S = 'Hunter2-S3cr3t!';
const secrets = allSecrets([S]);
const COMMANDS = [['validate'], ['render'], []];

const run = (args: string[], config: Record<string, unknown>, env: Record<string, string> = { S }) =>
  runCli([...args, '--config-inline', provider(config), ...(args.length === 0 ? ['--timeout', '3s'] : [])], { env });

function doubling(start: string): Record<string, unknown> {
  const lets: Record<string, string> = { a0: `${start} + '${'x'.repeat(1024)}'` };
  for (let i = 1; i <= 21; i++) lets[`a${i}`] = `a${i - 1} + a${i - 1}`;
  return { let: lets, method: 'GET', url: 'https://127.0.0.1:9/?x={{ a21 }}', tokenPath: '$.t' };
}

describe('a template past its bounds', () => {
  it.each(COMMANDS)(
    'is exit 2 naming the let that passes 1 MiB, with or without a secret in the chain (%s)',
    async (...command) => {
      for (const start of ['env.S', "'y'"]) {
        const result = await run(command, doubling(start));
        expectFailure(
          result,
          2,
          'webAPIProviderConfig.let.a10: {{ a9 + a9 }}: the value exceeds 1 MiB (a template computes values of at most 1 MiB)',
          secrets,
        );
      }
    },
  );

  it.each(COMMANDS)('is exit 2 when 10 000 fields repeat a let of half a megabyte (%s)', async (...command) => {
    const form = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, '{{ big }}']));
    const lets: Record<string, string> = { h0: `env.S + '${'z'.repeat(1009)}'` };
    for (let i = 1; i <= 9; i++) lets[`h${i}`] = `h${i - 1} + h${i - 1}`;
    const config = { let: { ...lets, big: 'h9' }, method: 'POST', url: 'https://127.0.0.1:9/', form, tokenPath: '$.t' };
    const path = writeTemp('many-fields.json', provider(config));
    const result = await runCli([...command, '--config', path, ...(command.length === 0 ? ['--timeout', '60s'] : [])], {
      env: { S },
    });
    expectFailure(
      result,
      2,
      /^webAPIProviderConfig\.form\.f\d+: the templates compute more than 16 MiB in all$/,
      secrets,
    );
  });

  it.each(COMMANDS)(
    'takes a list literal of 200 000 items and an object of 25 000 secret fields, with no stack overflow (%s)',
    async (...command) => {
      // Their items were spread into a call (rest arguments): "Maximum call stack size exceeded",
      // reported as "the config is nested too deeply to read" of a config one level deep.
      const list = `[${Array.from({ length: 200_000 }, () => '1').join(',')}]`;
      const object = `{${Array.from({ length: 25_000 }, (_, i) => `k${i}: env.S`).join(',')}}`;
      const config = {
        method: 'POST',
        url: `https://127.0.0.1:9/?x={{ json(${list}[0]) }}`,
        body: `{{ json(${object}) }}`,
        tokenPath: '$.t',
      };
      const path = writeTemp('wide.json', provider(config));
      // A deadline far off: half a megabyte of secret body takes its time to redact on a loaded machine.
      const result = await runCli(
        [...command, '--config', path, ...(command.length === 0 ? ['--timeout', '60s'] : [])],
        { env: { S } },
      );
      if (command.length === 0) {
        expectFailure(result, 3, /^connection to https:\/\/127\.0\.0\.1:9\/ refused/, secrets);
      } else {
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(
          command[0] === 'validate' ? 'is valid: POST https://127.0.0.1:9/?x=1' : 'POST https://127.0.0.1:9/?x=1',
        );
        for (const secret of secrets) expect(result.stdout).not.toContain(secret);
      }
    },
  );

  it.each(COMMANDS)(
    'refuses a + chain of 2 000 terms as nested too deeply, with one line and no trace (%s)',
    async (...command) => {
      // The parser built it, and evaluating it overflowed the stack: Node printed "Exception in
      // PromiseRejectCallback" and its trace on stderr, then "the config is nested too deeply to read".
      const chain = Array.from({ length: 2_000 }, () => "'a'").join('+');
      const result = await run(command, {
        method: 'GET',
        url: `https://127.0.0.1:9/?x={{ ${chain} }}`,
        tokenPath: '$.t',
      });
      expectFailure(
        result,
        2,
        /^config from --config-inline is invalid: webAPIProviderConfig\.url: the expression is nested too deeply \(more than 256 levels\)$/,
        secrets,
      );
    },
  );

  it.each(COMMANDS)('is exit 2 when 40 lets share one list (%s)', async (...command) => {
    const lets: Record<string, string> = { a0: '[env.S, env.S]' };
    for (let i = 1; i <= 40; i++) lets[`a${i}`] = `[a${i - 1}, a${i - 1}]`;
    const result = await run(command, {
      let: lets,
      method: 'GET',
      url: "https://127.0.0.1:9/?x={{ a40[0] ? 'a' : 'b' }}",
      tokenPath: '$.t',
    });
    expectFailure(
      result,
      2,
      /^webAPIProviderConfig\.let\.a1\d: \{\{ \[a1\d, a1\d\] \}\}: the value exceeds 1 MiB \(a template computes values of at most 1 MiB\)$/,
      secrets,
    );
  });
});
