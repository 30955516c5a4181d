// The evaluator's bounds and its taint (SPEC "Templates"): a value shared by many lets is walked
// once, every computed value is at most 1 MiB, a value decided by a secret is a secret, and a secret
// is registered where it reaches a field that is secret: everywhere but the URL up to its query and
// a file() path.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import type { FieldKind } from '../../src/template/rendered-field.js';
import { DECIDED_FAILURE } from '../../src/template/problems.js';
import { rejected } from '../helpers/caught.js';

const S = 'Hunter2-S3cr3t!';
const ENV: Record<string, string> = {
  S,
  HOST: 'api.example.test',
  CS: 'p@ss w0rd/x+y:z',
  CFG: '{"pin":4711,"deep":[[[[{"k":"deep-secret-Qx7"}]]]]}',
  HKEY: 'hmac-key-for-jwt-Zk81',
};

function setup(env: Record<string, string> = ENV, readFile: (path: string) => string = () => 'file-content-Vv2') {
  const redactor = new Redactor();
  const renderer = new TemplateRenderer(
    { env, vars: {}, cluster: undefined, readFile, nowMs: () => 1_700_000_000_000, uuid: randomUUID },
    redactor,
  );
  renderer.setSteps('placeholders');
  const render = async (template: string, where = 'webAPIProviderConfig.body', kind: FieldKind = 'value') => {
    const field = await renderer.render(template, where, kind);
    renderer.finish();
    return { text: field.sent, shown: field.shown };
  };
  return { renderer, redactor, render };
}

/** The UsageError that `run` rejects with (test/helpers/caught.ts). */
const failure = (run: () => Promise<unknown>): Promise<UsageError> => rejected(UsageError, run());

describe('the evaluation budget', () => {
  it('refuses a let that doubles past 1 MiB, naming the field, with or without a secret in the chain', async () => {
    for (const start of ['env.S', '"x"']) {
      const { renderer } = setup();
      const lets: Array<[string, string]> = [['a0', `${start} + "${'x'.repeat(1024)}"`]];
      for (let i = 1; i <= 21; i++) lets.push([`a${i}`, `a${i - 1} + a${i - 1}`]);
      await renderer.defineLets(lets);
      await renderer.render('https://example.invalid/?x={{ a21 }}', 'webAPIProviderConfig.url', 'url');
      const error = await failure(async () => renderer.finish());
      expect(error.code).toBe('TEMPLATE_TOO_LARGE');
      expect(error.message).toBe(
        'webAPIProviderConfig.let.a10: {{ a9 + a9 }}: the value exceeds 1 MiB (a template computes values of at most 1 MiB)',
      );
      expect(error.message).not.toContain(S);
    }
  });

  it('walks a value shared by 40 lets once: [a, a] doubling is refused at 1 MiB, not walked 2^40 times', async () => {
    const { renderer } = setup();
    const lets: Array<[string, string]> = [['a0', '[env.S, env.S]']];
    for (let i = 1; i <= 40; i++) lets.push([`a${i}`, `[a${i - 1}, a${i - 1}]`]);
    await renderer.defineLets(lets);
    await renderer.render("https://127.0.0.1:9/?x={{ a40[0] ? 'a' : 'b' }}", 'webAPIProviderConfig.url', 'url');
    const error = await failure(async () => renderer.finish());
    expect(error.message).toMatch(
      /^webAPIProviderConfig\.let\.a1\d: \{\{ \[a1\d, a1\d\] \}\}: the value exceeds 1 MiB/,
    );
  });

  it('refuses json() of a value past 1 MiB and an object literal past it', async () => {
    const { renderer } = setup();
    await renderer.defineLets([
      ['big', `"${'y'.repeat(600 * 1024)}"`],
      ['pair', '{ a: big, b: big }'],
    ]);
    await renderer.render('{{ json(pair) }}', 'webAPIProviderConfig.body');
    const error = await failure(async () => renderer.finish());
    expect(error.message).toBe(
      'webAPIProviderConfig.let.pair: {{ { a: big, b: big } }}: the value exceeds 1 MiB (a template computes values of at most 1 MiB)',
    );
  });
});

describe('a value decided by a secret', () => {
  it.each([
    ['a condition', `{{ env.S == '${S}' ? 'guessed' : 'wrong' }}`],
    ['a comparison', "{{ env.S >= 'H' }}"],
    ['!', '{{ !env.S }}'],
    ['&&', "{{ env.S && 'a' }}"],
    ['||', "{{ (env.S === 'x') || 'b' }}"],
    ['??', "{{ (env.S > 'm' ? 'p' : 'n') ?? 'c' }}"],
    ['a computed member', "{{ { H: 'h', x: 'x' }[lower(env.S) >= 'h' ? 'H' : 'x'] }}"],
    ['a computed key from the secret itself', '{{ fromJson(\'{"Hunter2-S3cr3t!":"yes"}\')[env.S] }}'],
  ])('is shown as [REDACTED] in a secret field: %s', async (_name, template) => {
    const { render } = setup();
    const { shown } = await render(`q=${template}`);
    expect(shown).toBe('q=[REDACTED]');
  });

  it('is registered with the redactor when it is long enough to be found', async () => {
    const { render, redactor } = setup();
    await render(`{{ env.S == '${S}' ? 'guessed-right' : 'wrong-guess' }}`);
    expect(redactor.redact('answer: guessed-right')).toBe('answer: [REDACTED]');
  });

  it('cannot spell a secret out one comparison at a time, in the query or the path of the URL', async () => {
    const { renderer } = setup();
    // Each character found by a binary search over printable ASCII, as a generated config would.
    const alphabet = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter(
      (c) => c !== '"' && c !== '\\',
    );
    const search = (prefix: string, chars: string[]): string => {
      if (chars.length === 1) return JSON.stringify(chars[0]);
      const middle = Math.floor(chars.length / 2);
      return `(env.S >= ${prefix} + ${JSON.stringify(chars[middle])} ? ${search(prefix, chars.slice(middle))} : ${search(prefix, chars.slice(0, middle))})`;
    };
    const lets: Array<[string, string]> = [['p0', '""']];
    for (let i = 0; i < S.length; i++) {
      lets.push([`c${i}`, search(`p${i}`, alphabet)]);
      lets.push([`p${i + 1}`, `p${i} + c${i}`]);
    }
    await renderer.defineLets(lets);
    const letters = Array.from(S, (_, i) => `{{ c${i} }}`).join('.');
    for (const template of [
      `https://example.invalid/?q=${letters}`,
      `https://example.invalid/${letters.replaceAll('.', '/')}`,
    ]) {
      const { sent: text, shown } = await renderer.render(template, 'webAPIProviderConfig.url', 'url');
      renderer.finish();
      expect(text).toContain(Array.from(S).join(template.includes('?') ? '.' : '/'));
      expect(shown).not.toMatch(/H.u.n.t/);
      expect(shown).toContain('[REDACTED]');
    }
  });
});

describe('an error under a value decided by a secret', () => {
  it('is the same whichever branch the secret chose: both branches are evaluated', async () => {
    const messages: string[] = [];
    for (const secret of ['Alpha', 'zulu']) {
      const { render } = setup({ S: secret });
      messages.push((await failure(() => render("{{ env.S >= 'm' ? vars.first : vars.second }}"))).message);
      // The branch not taken fails too: else whether a field fails would tell the comparison.
      await expect(render("{{ env.S >= 'm' ? 'yes' + vars.v : 'no' }}")).rejects.toThrow('vars.v is not set');
      await expect(render("{{ (env.S >= 'm') && vars.w }}")).rejects.toThrow('vars.w is not set');
    }
    expect(messages[0]).toBe(messages[1]);
    expect(messages[0]).toContain('vars.first, vars.second are not set');
  });

  it('is the same when one branch is null, whichever the secret chose', async () => {
    for (const secret of ['Alpha', 'zulu']) {
      const { render } = setup({ S: secret });
      await expect(render('{{ env.S >= "m" ? null : "a" }}')).rejects.toThrow(DECIDED_FAILURE);
    }
  });

  it('does not quote a name or key that a secret gave', async () => {
    const { render, redactor } = setup();
    const error = await failure(() => render('{{ env[env.S] }}', 'webAPIProviderConfig.headers.X'));
    expect(redactor.redact(error.message)).not.toContain(S);
    expect(error.message).not.toContain('webAPIProviderConfig.headers.X');
    const { text } = await render('{{ steps.login[env.S] }}', 'webAPIProviderConfig.headers.Y');
    expect(text).toBe('[steps.login[...]]');
  });
});

describe('a failure that a value decided by a secret caused', () => {
  // Each of these fails for one secret and not the other: the field's own message would spell the
  // secret out one let at a time, so such a failure names neither the field nor the reason.
  const cases = [
    "{ a: 1 }[env.S > 'm' ? 'a' : 'b']",
    "[1, 2][env.S > 'm' ? 0 : 5]",
    "(env.S > 'm' ? { a: 1 } : { b: 1 }).a",
    "fromJson(env.S > 'm' ? '1' : 'xxxxxxxx')",
    "base64decode(env.S > 'm' ? 'YQ' : '!!')",
    "(env.S > 'm' || 'x') < 1",
    "(env.S > 'm' || [1]) + 'a'",
    "env.S > 'm' || [1]",
  ];
  it.each(cases)('%s: a failure names neither the field nor why', async (expression) => {
    const shown = new Set<string>();
    for (const secret of ['Alpha', 'zulu']) {
      const { render } = setup({ S: secret });
      shown.add(
        await render(`{{ ${expression} }}`, 'webAPIProviderConfig.headers.X').then(
          () => 'rendered',
          (error: Error) => error.message,
        ),
      );
    }
    // Whether the pass fails is one bit a run; which of many lets failed would be one bit each.
    expect([...shown].sort()).toEqual([DECIDED_FAILURE, 'rendered']);
  });

  it('is one message for many lets, whichever of them failed', async () => {
    const messages = new Set<string>();
    for (const secret of ['Alpha', 'Hotel', 'Mike']) {
      const { renderer } = setup({ S: secret });
      await renderer.defineLets([
        ['c0', "{ a: 1 }[env.S > 'm' ? 'a' : 'b']"],
        ['c1', "{ a: 1 }[env.S > 'G' ? 'a' : 'b']"],
        ['c2', "fromJson(env.S > 'Z' ? '1' : 'x')"],
      ]);
      messages.add(
        await (async () => renderer.finish())().then(
          () => 'fine',
          (error: Error) => error.message,
        ),
      );
    }
    expect([...messages]).toEqual([DECIDED_FAILURE]);
  });

  it('names no field where the pass passes its bound, once a secret decided how much came before', async () => {
    const messages = new Set<string>();
    for (const secret of ['Alpha', 'zulu']) {
      const { renderer } = setup({ S: secret });
      const lets: Array<[string, string]> = [['b0', `'${'x'.repeat(1000)}'`]];
      for (let i = 1; i <= 9; i++) lets.push([`b${i}`, `b${i - 1} + b${i - 1}`]);
      lets.push(['sel', "env.S > 'm' ? b9 : 'y'"]);
      await renderer.defineLets(lets);
      await renderer.render('{{ sel + "z" }}', 'webAPIProviderConfig.headers.A');
      for (let i = 0; i < 40; i++) await renderer.render('{{ b9 }}', `webAPIProviderConfig.form.f${i}`);
      messages.add(
        await (async () => renderer.finish())().then(
          () => 'fine',
          (error: Error) => error.message,
        ),
      );
    }
    expect([...messages]).toEqual([DECIDED_FAILURE]);
  });

  it('lets ?? and || give their right side when a left side a secret chose is missing', async () => {
    for (const secret of ['Alpha', 'zulu']) {
      const { render, redactor } = setup({ S: secret, Alpha: 'alpha-value-1' });
      const { shown } = await render('{{ env[env.S] ?? "dflt-value" }}', 'webAPIProviderConfig.headers.X');
      expect(redactor.redact(shown)).toBe('[REDACTED]');
      // 'Alpha' < 'm': the key misses and || gives 'other'; 'zulu' finds 'x'. Either way a secret chose it: shown as [REDACTED].
      expect(
        await render("{{ ({ a: 'x' }[env.S > 'm' ? 'a' : 'b']) || 'other' }}", 'webAPIProviderConfig.headers.Y'),
      ).toEqual({ text: secret === 'Alpha' ? 'other' : 'x', shown: '[REDACTED]' });
    }
  });

  it('keeps the message that names unset env variables (both branches are read)', async () => {
    const { render } = setup({ S: 'Alpha' });
    await expect(render("{{ env.S == 'prod' ? env.PROD_KEY : env.DEV_KEY }}")).rejects.toThrow(
      'env.PROD_KEY, env.DEV_KEY are not set',
    );
  });

  it('shows a step placeholder that a secret chose as [REDACTED]', async () => {
    const { render } = setup();
    const { shown } = await render("{{ env.S > 'm' ? steps.a.yes : steps.a.no }}", 'webAPIProviderConfig.headers.X');
    expect(shown).not.toMatch(/yes|no/);
  });
});

describe('where a secret is registered', () => {
  it('shows a host and path from env in the URL, and hides a query value from env', async () => {
    const { render, redactor } = setup();
    const { text } = await render('https://{{ env.HOST }}/token?q={{ env.S }}', 'webAPIProviderConfig.url', 'url');
    expect(redactor.redact(text)).toBe('https://api.example.test/token?q=[REDACTED]');
  });

  it.each([
    ['a header', 'webAPIProviderConfig.headers.X-Host'],
    ['a query value', 'webAPIProviderConfig.query.h'],
    ['the body', 'webAPIProviderConfig.body'],
    ['tls', 'webAPIProviderConfig.tls.serverName'],
  ])('hides a host from env everywhere once it also reaches %s', async (_name, where) => {
    const { renderer, redactor } = setup();
    const url = (await renderer.render('https://{{ env.HOST }}/token', 'webAPIProviderConfig.url', 'url')).sent;
    await renderer.render('{{ env.HOST }}', where);
    renderer.finish();
    expect(redactor.redact(url)).toBe('https://[REDACTED]/token');
  });

  it('hides a value once it reaches jwt() as its key, and the JWT', async () => {
    const { renderer, redactor } = setup();
    const url = (await renderer.render('https://example.invalid/{{ env.HKEY }}', 'webAPIProviderConfig.url', 'url'))
      .sent;
    const assertion = (
      await renderer.render(
        '{{ jwt({ iss: "me" }, env.HKEY, { alg: "HS256" }) }}',
        'webAPIProviderConfig.form.assertion',
      )
    ).sent;
    renderer.finish();
    expect(redactor.redact(`${url} ${assertion}`)).toBe('https://example.invalid/[REDACTED] [REDACTED]');
  });

  it('shows a URL read from a key file whose private key signs the assertion', async () => {
    const key = JSON.stringify({
      token_uri: 'https://oauth2.example.test/token',
      client_email: 'robot@example.test',
      private_key: 'hmac-private-key-Pq3',
    });
    const { renderer, redactor } = setup(ENV, () => key);
    await renderer.defineLets([['sa', 'fromJson(file(env.HOST))']]);
    const url = (await renderer.render('{{ sa.token_uri }}', 'webAPIProviderConfig.url', 'url')).sent;
    await renderer.render(
      '{{ jwt({ iss: sa.client_email, aud: sa.token_uri }, sa.private_key, { alg: "HS256" }) }}',
      'webAPIProviderConfig.form.assertion',
    );
    renderer.finish();
    expect(redactor.redact(`POST ${url} hmac-private-key-Pq3`)).toBe(
      'POST https://oauth2.example.test/token [REDACTED]',
    );
  });

  it('does not register a file() path, and registers the content where it is used', async () => {
    const { renderer, redactor } = setup({ ...ENV, KEY_FILE: '/run/secrets/key-file-path' });
    await renderer.render('{{ file(env.KEY_FILE) }}', 'webAPIProviderConfig.headers.Authorization');
    renderer.finish();
    expect(redactor.redact('/run/secrets/key-file-path file-content-Vv2')).toBe(
      '/run/secrets/key-file-path [REDACTED]',
    );
  });

  it('registers numbers in their text form and strings at any depth', async () => {
    const { render, redactor } = setup();
    const { shown } = await render('{{ fromJson(env.CFG).pin }}/{{ fromJson(env.CFG).deep[0][0][0][0].k }}');
    expect(shown).toBe('[REDACTED]/deep-secret-Qx7');
    expect(redactor.redact('pin 4711, deep-secret-Qx7')).toBe('pin [REDACTED], [REDACTED]');
  });

  it('registers the base64 of the encoded pair of basicAuth(), without the scheme', async () => {
    const { render, redactor } = setup();
    await render('{{ basicAuth("client", env.CS) }}', 'webAPIProviderConfig.headers.Authorization');
    const pair = Buffer.from(`client:${new URLSearchParams({ v: ENV['CS']! }).toString().slice(2)}`).toString('base64');
    expect(redactor.redact(`echo: ${pair}`)).toBe('echo: [REDACTED]');
  });

  it('names every env variable and literal file() path a template names, in every branch', async () => {
    const { renderer } = setup();
    await renderer.render(
      "{{ steps.login.role == 'admin' ? env.ADMIN_SECRET : env.USER_SECRET }}{{ vars.x ? file('a.pem') : env['OTHER-NAME'] }}",
      'webAPIProviderConfig.form.s',
    );
    expect([...renderer.envNamed].sort()).toEqual(['ADMIN_SECRET', 'OTHER-NAME', 'USER_SECRET']);
    expect([...renderer.filesNamed]).toEqual(['a.pem']);
  });

  it('does not name a file whose path a secret chose', async () => {
    const { renderer } = setup(ENV, () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    });
    await renderer.render("{{ file(env.S >= 'H' ? '/yes' : '/no') }}", 'webAPIProviderConfig.body');
    const error = await failure(async () => renderer.finish());
    // Which file failed, or whether one did, is the secret's choice: the message says neither.
    expect(error.message).toBe(DECIDED_FAILURE);
  });
});

describe('noninterference', () => {
  // Expressions over a secret: whatever they compute, render shows the same for two secrets of one length.
  const literal = fc.constantFrom(
    '"a"',
    '"yes"',
    '"guessed-right"',
    '1',
    '12345678',
    'true',
    'null',
    'null',
    '"H"',
    '"m"',
  );
  const expression: fc.Arbitrary<string> = fc.letrec((tie) => ({
    leaf: fc.oneof(literal, fc.constant('env.S'), fc.constant('lower(env.S)')),
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('leaf') as fc.Arbitrary<string>,
      fc
        .tuple(
          tie('node') as fc.Arbitrary<string>,
          fc.constantFrom('==', '!=', '<', '>=', '===', '&&', '||', '??'),
          tie('node') as fc.Arbitrary<string>,
        )
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc
        .tuple(
          tie('node') as fc.Arbitrary<string>,
          tie('node') as fc.Arbitrary<string>,
          tie('node') as fc.Arbitrary<string>,
        )
        .map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `!${a}`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `{ a: "x", b: "y" }[${a} ? "a" : "b"]`),
      fc
        .tuple(tie('node') as fc.Arbitrary<string>, tie('node') as fc.Arbitrary<string>)
        .map(([a, b]) => `(${a} + ${b})`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `base64(${a})`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `json([${a}])`),
      // Operations that fail for some values: whether they fail must not tell what a secret chose.
      (tie('node') as fc.Arbitrary<string>).map((a) => `{ a: 1 }[${a} ? "a" : "b"]`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `[1, 2][${a} ? 0 : 5]`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `(${a} ? { a: 1 } : { b: 1 }).a`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `fromJson(${a} ? "1" : "xxxx")`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `base64decode(${a} ? "YQ" : "!!")`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `(${a} || [1])`),
      (tie('node') as fc.Arbitrary<string>).map((a) => `(${a} < 1)`),
    ),
  })).node;

  it('shows the same for two secrets: no value a secret decided gets through', async () => {
    const shownFor = async (secret: string, template: string) => {
      const { renderer, redactor } = setup({ S: secret });
      let text: string;
      try {
        const field = await renderer.render(template, 'webAPIProviderConfig.headers.X');
        renderer.finish();
        text = field.shown;
      } catch (error) {
        text = (error as Error).message;
      }
      return redactor.redact(text);
    };
    const outcomes = { same: 0, rendered: 0, oneBit: 0 };
    await fc.assert(
      fc.asyncProperty(expression, async (e) => {
        const template = `q={{ ${e} }}`;
        const [a, b] = [await shownFor('Hunter2-S3cr3t!', template), await shownFor('zulu-yankee-xra', template)];
        for (const shown of [a, b]) expect(shown).not.toMatch(/hunter2|s3cr3t|yankee/i);
        if (a === b) {
          outcomes.same++;
          if (a.startsWith('q=')) outcomes.rendered++;
          return;
        }
        // Not the same: one of them is the failure that names nothing (one bit a run, never one a field).
        outcomes.oneBit++;
        expect([a, b]).toContain(DECIDED_FAILURE);
      }),
      { numRuns: 1000 },
    );
    // The property was tried on renderings as well as on failures: a renderer that failed every
    // template, or never failed one, would not pass. (The one bit is rarer here, a few runs in a
    // thousand: comparisons.test.ts builds it on purpose.)
    expect(outcomes.rendered).toBeGreaterThan(100);
    expect(outcomes.same - outcomes.rendered).toBeGreaterThan(50);
  });
});
