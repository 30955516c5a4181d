// Templates: {{ expressions }} parsed by jsep and evaluated by our whitelist, no HTML escaping,
// strict about undefined/null, and every value derived from a secret registered with the Redactor.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer, type TemplateScope } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

const ENV = {
  ORG_NAME: 'acme-corp',
  API_USER: 'alice-user',
  API_PASS: 'hunter22:pw',
  SPECIAL: 'a b&c/d?é',
  EMPTY: '',
  'MY-VAR': 'dashed-value',
  UNREAD: 'never-read-secret',
};

const FILES: Record<string, string> = {
  '/secrets/token': 'file-token-value\n',
  '/secrets/crlf': 'crlf-token-value\r\n',
  '/secrets/two-newlines': 'two-newlines-value\n\n',
  '/secrets/none': 'no-newline-value',
  '/secrets/sa.json': '{"client_email":"robot@example.iam","private_key":"-----BEGIN PRIVATE KEY-----abc"}',
};

const CLUSTER = {
  server: 'https://k8s.example.com:6443',
  'certificate-authority-data': 'Q0EtREFUQQ==',
  'tls-server-name': 'k8s.internal',
  config: { webAPIProviderConfig: { method: 'POST' } },
};

function setup(scope: Partial<TemplateScope> = {}) {
  const redactor = new Redactor();
  const renderer = new TemplateRenderer(
    {
      env: ENV,
      vars: { audience: 'spaces-api-audience', scope: 'read write' },
      cluster: CLUSTER,
      readFile: (path) => {
        const content = FILES[path];
        if (content === undefined)
          throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
        return content;
      },
      nowMs: Date.now,
      uuid: randomUUID,
      ...scope,
    },
    redactor,
  );
  const render = async (template: string, where = 'webAPIProviderConfig.url') => {
    const out = (await renderer.render(template, where)).sent;
    renderer.finish();
    return out;
  };
  return { renderer, redactor, render };
}

const failure = (promise: Promise<unknown>): Promise<UsageError> => rejected(UsageError, promise);

describe('TemplateRenderer', () => {
  it.each([
    ['a text without tags unchanged', 'https://auth.example.com/token', 'https://auth.example.com/token'],
    ['an env value', 'org={{ env.ORG_NAME }}', 'org=acme-corp'],
    ['an env value without spaces in the tag', '{{env.ORG_NAME}}', 'acme-corp'],
    ['an env value with a dash in its name', '{{ env["MY-VAR"] }}', 'dashed-value'],
    ['a default for a set but empty env value (empty reads as not set)', '[{{ env.EMPTY ?? "d" }}]', '[d]'],
    ['a default for an unset env value', '{{ env.NOT_SET ?? "fallback" }}', 'fallback'],
    [
      'a default for an unset env value inside a concatenation',
      '{{ "id:" + (env.NOT_SET ?? "anonymous") }}',
      'id:anonymous',
    ],
    ['the value, not the default, when the env value is set', '{{ env.ORG_NAME ?? "fallback" }}', 'acme-corp'],
    ['a var', 'aud={{ vars.audience }}', 'aud=spaces-api-audience'],
    ['a default for an unset var', '{{ vars.nope ?? "d" }}', 'd'],
    ['the cluster server', '{{ cluster.server }}', 'https://k8s.example.com:6443'],
    ['a kebab-case cluster key', '{{ cluster["certificate-authority-data"] }}', 'Q0EtREFUQQ=='],
    ['the cluster config as JSON', '{{ json(cluster.config) }}', '{"webAPIProviderConfig":{"method":"POST"}}'],
    ['urlencode', '{{ urlencode(env.SPECIAL) }}', 'a%20b%26c%2Fd%3F%C3%A9'],
    [
      'base64',
      '{{ base64(env.API_USER + ":" + env.API_PASS) }}',
      Buffer.from('alice-user:hunter22:pw').toString('base64'),
    ],
    ['base64 of non-ASCII text as UTF-8', '{{ base64("é") }}', 'w6k='],
    ['base64decode', '{{ base64decode("aGVsbG8gd29ybGQ=") }}', 'hello world'],
    ['json of a string', '{{ json(env.SPECIAL) }}', '"a b&c/d?é"'],
    ['json of a list', '{{ json([1, "a"]) }}', '[1,"a"]'],
    ['a number', 'n={{ 40 + 2 }}', 'n=42'],
    ['a boolean', '{{ env.ORG_NAME === "acme-corp" }}', 'true'],
    ['a boolean that is false', '{{ env.ORG_NAME === "acme" }}', 'false'],
    ['HTML-special characters unescaped', `<&>"'{{ "<&>\\"'" }}`, `<&>"'<&>"'`],
    ['a file, trimming one trailing newline', '[{{ file("/secrets/token") }}]', '[file-token-value]'],
    ['a file, trimming one trailing CRLF', '[{{ file("/secrets/crlf") }}]', '[crlf-token-value]'],
    [
      'a file, trimming only one of two trailing newlines',
      '[{{ file("/secrets/two-newlines") }}]',
      '[two-newlines-value\n]',
    ],
    ['a file without a trailing newline', '[{{ file("/secrets/none") }}]', '[no-newline-value]'],
    ['two interpolations', '{{ vars.audience }}/{{ env.ORG_NAME }}', 'spaces-api-audience/acme-corp'],
    ['a condition', '{{ env.ORG_NAME ? "yes" : "no" }}', 'yes'],
    ['lower, upper and trim', '{{ lower("AbC") }}{{ upper("x") }}[{{ trim("  t ") }}]', 'abcX[t]'],
    ['base64url without padding', '{{ base64url("??>") }}', 'Pz8-'],
    ['fromJson and member access', '{{ fromJson("{\\"a\\":[1,{\\"b\\":\\"c\\"}]}").a[1].b }}', 'c'],
    [
      'basicAuth with both parts form-encoded (RFC 6749 §2.3.1)',
      '{{ basicAuth("my id", "p+s%:/=~ x") }}',
      `Basic ${Buffer.from('my+id:p%2Bs%25%3A%2F%3D%7E+x').toString('base64')}`,
    ],
    ['an object literal given to json', '{{ json({ a: 1, "b-c": [true, null] }) }}', '{"a":1,"b-c":[true,null]}'],
    ['braces inside an expression', '{{ json({ a: { b: 1 }}) }}', '{"a":{"b":1}}'],
    ['comparisons', '{{ 1 < 2 && "a" !== "b" && !(2 <= 1) }}', 'true'],
    [
      'comparisons that are false',
      '{{ json([2 < 1, "a" !== "a", 2 <= 1, 1 > 1, 1 >= 2, 1 === 2, 1 == 2, 1 != 1]) }}',
      '[false,false,false,false,false,false,false,false]',
    ],
    ['loose equality of a number and its text', '{{ 1 == "1" }}', 'true'],
    ['loose inequality of a number and other text', '{{ 1 == "2" }}', 'false'],
    ['a negative number', '{{ -1 + 3 }}', '2'],
    ['a default for a name every object inherits, read from env', '{{ env.hasOwnProperty ?? "d" }}', 'd'],
  ])('renders %s', async (_name, template, expected) => {
    expect(await setup().render(template)).toBe(expected);
  });

  // Never a default for an env value: it is a secret, and a default would put one in the config.
  const NOT_SET = (name: string) => `${name} is not set (set it in the environment or the kubeconfig exec env)`;
  it.each([
    [
      'an unset env value',
      '{{ env.ORG_NAM }}',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ env.ORG_NAM }}: ${NOT_SET('env.ORG_NAM')}`,
    ],
    [
      'a set but empty env value',
      '[{{ env.EMPTY }}]',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ env.EMPTY }}: ${NOT_SET('env.EMPTY')}`,
    ],
    [
      'an unset env value with a dash',
      '{{ env["NO-SUCH"] }}',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ env["NO-SUCH"] }}: ${NOT_SET('env["NO-SUCH"]')}`,
    ],
    [
      'an unset var',
      'a={{ vars.audience }}&b={{ vars.scop }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ vars.scop }}: vars.scop is not set (pass --set scop=…, or give a default: vars.scop ?? "…")',
    ],
    [
      'an unset env value given to a helper',
      '{{ urlencode(env.MISSING) }}',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ urlencode(env.MISSING) }}: ${NOT_SET('env.MISSING')}`,
    ],
    // jwt() and json() would otherwise drop the member: an assertion without iss, sent as if nothing were wrong.
    [
      'an unset var in an object literal',
      '{{ json({ iss: vars.clientId, aud: "x" }) }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ json({ iss: vars.clientId, aud: "x" }) }}: vars.clientId is not set (pass --set clientId=…, or give a default: vars.clientId ?? "…")',
    ],
    [
      'an unset env value in a list literal',
      '{{ json([1, env.NOPE]) }}',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ json([1, env.NOPE]) }}: ${NOT_SET('env.NOPE')}`,
    ],
    [
      'null given to a helper',
      '{{ base64(null) }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ base64(null) }}: base64() was given null',
    ],
    [
      'a missing cluster key',
      '{{ cluster.nope }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ cluster.nope }}: cluster.nope is not set',
    ],
    ['a null literal', '{{ null }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ null }}: yields null'],
    [
      'an object',
      '{{ cluster.config }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ cluster.config }}: yields an object; wrap it in json(…)',
    ],
    [
      'a list',
      '{{ [1, 2] }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ [1, 2] }}: yields a list; wrap it in json(…)',
    ],
    [
      'an unknown name',
      '{{ nope }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ nope }}: unknown name nope; a template reads env, vars, cluster, steps and calls the helpers urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
    ],
    [
      'an env variable written without env.',
      '{{ CLIENT_SECRET }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ CLIENT_SECRET }}: unknown name CLIENT_SECRET; an environment variable is read as env.CLIENT_SECRET',
    ],
    [
      'an unknown helper',
      '{{ sha256(env.ORG_NAME) }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ sha256(env.ORG_NAME) }}: sha256() is not a helper; the helpers are urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
    ],
    [
      'an unreadable file',
      '{{ file("/secrets/missing") }}',
      'TEMPLATE_EVAL',
      'webAPIProviderConfig.url: {{ file("/secrets/missing") }}: file("/secrets/missing") cannot be read: no such file',
    ],
    [
      'an unset env value concatenated into a string',
      '{{ vars.audience + ":" + env.CLIENT_SECRET }}',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ vars.audience + ":" + env.CLIENT_SECRET }}: ${NOT_SET('env.CLIENT_SECRET')}`,
    ],
    [
      'an unset env value concatenated inside a helper',
      '{{ base64(env.API_USER + ":" + env.NO_PASS) }}',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ base64(env.API_USER + ":" + env.NO_PASS) }}: ${NOT_SET('env.NO_PASS')}`,
    ],
    [
      'a template literal',
      '{{ `aud=${vars.missing}` }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ `aud=${vars.missing}` }}: Unexpected "`" at character 0',
    ],
    [
      'an unclosed tag',
      'x {{ env.ORG_NAME',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ at character 3 is never closed with }}',
    ],
    [
      'an unclosed string',
      '{{ "abc }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ at character 1 is never closed with }}',
    ],
    [
      'a statement block',
      '{{% if (x) { }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{% %}} statements are not supported: a template holds expressions only',
    ],
    [
      'a method call',
      '{{ env.ORG_NAME.toUpperCase() }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ env.ORG_NAME.toUpperCase() }}: calling a method (toUpperCase) is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
    ],
    [
      'process.env',
      '{{ process.env.API_PASS }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ process.env.API_PASS }}: process is not available: a template reads only env, vars, cluster, steps and calls the helpers',
    ],
    [
      'a constructor',
      '{{ cluster.constructor }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ cluster.constructor }}: constructor is not data: only the own properties of objects and lists can be read',
    ],
    [
      'a computed constructor',
      '{{ cluster["const" + "ructor"] }}',
      'TEMPLATE_EVAL',
      'webAPIProviderConfig.url: {{ cluster["const" + "ructor"] }}: cluster[…]: constructor is not data',
    ],
    [
      'a helper used as a value',
      '{{ urlencode.constructor("return process")() }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ urlencode.constructor("return process")() }}: calling a method is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
    ],
    // Names every JavaScript object inherits are no helpers, no data and no environment variables.
    [
      'a name every object inherits, called as a helper',
      '{{ hasOwnProperty("x") }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ hasOwnProperty("x") }}: hasOwnProperty() is not a helper; the helpers are urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
    ],
    [
      'a name every object inherits, as a value',
      '{{ toString }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ toString }}: unknown name toString; a template reads env, vars, cluster, steps and calls the helpers urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
    ],
    [
      'a member every object inherits',
      '{{ cluster.config.toString }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ cluster.config.toString }}: cluster.config.toString is not set',
    ],
    [
      'a member every object inherits, of an environment variable',
      '{{ env.toString }}',
      'TEMPLATE_VALUE',
      `webAPIProviderConfig.url: {{ env.toString }}: ${NOT_SET('env.toString')}`,
    ],
    [
      'a method of a list, read as a member',
      '{{ fromJson("[1]").map }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ fromJson("[1]").map }}: fromJson(…).map is not set',
    ],
    [
      'a member of a list literal',
      '{{ [1, 2].at }}',
      'TEMPLATE_VALUE',
      'webAPIProviderConfig.url: {{ [1, 2].at }}: (…).at is not set',
    ],
    [
      'a property of a string',
      '{{ cluster.server.length }}',
      'TEMPLATE_EVAL',
      'webAPIProviderConfig.url: {{ cluster.server.length }}: cluster.server.length: a string has no properties to read',
    ],
    [
      'new',
      '{{ new Error("x") }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ new Error("x") }}: new is not supported',
    ],
    ['this', '{{ this }}', 'TEMPLATE_SYNTAX', 'webAPIProviderConfig.url: {{ this }}: this is not supported'],
    [
      'an arrow function',
      '{{ (() => 1)() }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ (() => 1)() }}: Unexpected "=" at character 4',
    ],
    [
      'arithmetic other than +',
      '{{ 6 * 7 }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ 6 * 7 }}: the operator * is not supported; the operators are + ?? || && === !== == != < <= > >= ! and c ? a : b',
    ],
    [
      'two expressions',
      '{{ env.A, env.B }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ env.A, env.B }}: one expression per {{ }}: a comma or a second expression is not supported',
    ],
    [
      'env as a whole',
      '{{ json(env) }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ json(env) }}: env can only be read one variable at a time: env.NAME or env["NAME"]',
    ],
    [
      'a helper with too many arguments',
      '{{ urlencode("a", "b") }}',
      'TEMPLATE_SYNTAX',
      'webAPIProviderConfig.url: {{ urlencode("a", "b") }}: urlencode() takes 1 argument, given 2',
    ],
    [
      'JSON that is not JSON',
      '{{ fromJson(env.API_PASS) }}',
      'TEMPLATE_EVAL',
      'webAPIProviderConfig.url: {{ fromJson(env.API_PASS) }}: fromJson() was given text that is not JSON',
    ],
    [
      'base64 that is not base64',
      '{{ base64decode(env.API_PASS) }}',
      'TEMPLATE_EVAL',
      'webAPIProviderConfig.url: {{ base64decode(env.API_PASS) }}: base64decode() was given text that is not base64',
    ],
  ])('reports %s with the field and the expression', async (_name, template, code, message) => {
    const error = await failure(setup().render(template));
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.message).not.toContain(ENV.API_PASS);
  });

  it('reports every problem of every field in one error', async () => {
    const { renderer } = setup();
    await renderer.render('{{ env.ORG_NAME }}-{{ env.FIRST_MISSING }}', 'webAPIProviderConfig.body');
    await renderer.render('{{ vars.second }}', 'webAPIProviderConfig.headers.X');
    const error = await failure(Promise.resolve().then(() => renderer.finish()));
    expect(error.message).toBe(
      `webAPIProviderConfig.body: {{ env.FIRST_MISSING }}: ${NOT_SET('env.FIRST_MISSING')}; webAPIProviderConfig.headers.X: {{ vars.second }}: vars.second is not set (pass --set second=…, or give a default: vars.second ?? "…")`,
    );
  });

  it('tells how to get spec.cluster when a template reads cluster and client-go sent none', async () => {
    const error = await failure(setup({ cluster: undefined }).render('{{ cluster.server }}'));
    expect(error.code).toBe('TEMPLATE_VALUE');
    expect(error.message).toBe(
      'webAPIProviderConfig.url: {{ cluster.server }}: cluster is not set (KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry)',
    );
  });

  it('attaches no cause that could carry a secret', async () => {
    const error = await failure(setup().render('{{ fromJson(env.API_PASS) }}'));
    expect(error.cause).toBeUndefined();
  });

  it('does not leak the value of a set env variable in an error about another', async () => {
    const error = await failure(setup().render('{{ env.API_PASS }}{{ env.NOPE }}'));
    expect(error.message).not.toContain(ENV.API_PASS);
  });

  it('evaluates let names once, in order, each using the ones before', async () => {
    const { renderer } = setup();
    await renderer.defineLets([
      ['user', 'env.API_USER'],
      ['pair', 'user + ":" + env.API_PASS'],
    ]);
    expect((await renderer.render('{{ base64(pair) }}', 'webAPIProviderConfig.body')).sent).toBe(
      Buffer.from('alice-user:hunter22:pw').toString('base64'),
    );
    renderer.finish();
  });

  it('reports a failing let once, not again in every field that uses it', async () => {
    const { renderer } = setup();
    await renderer.defineLets([['secret', 'env.NOT_THERE']]);
    await renderer.render('{{ secret }}', 'webAPIProviderConfig.body');
    await renderer.render('{{ secret }}', 'webAPIProviderConfig.headers.X');
    const error = await failure(Promise.resolve().then(() => renderer.finish()));
    expect(error.message).toBe(`webAPIProviderConfig.let.secret: {{ env.NOT_THERE }}: ${NOT_SET('env.NOT_THERE')}`);
  });

  it('records every env name read, set, empty or unset, including behind ??', async () => {
    const { renderer, render } = setup();
    await render('{{ env.ORG_NAME }}{{ env.EMPTY ?? "" }}{{ env.UNSET ?? "d" }}{{ env["MY-VAR"] }}');
    expect([...renderer.envRead].sort()).toEqual(['EMPTY', 'MY-VAR', 'ORG_NAME', 'UNSET']);
  });

  it('marks now() and uuid() as volatile, and nothing else', async () => {
    const plain = setup();
    await plain.render('{{ env.ORG_NAME }}{{ base64("x") }}');
    expect(plain.renderer.volatile).toBe(false);
    const clock = setup({ nowMs: () => 1_700_000_000_123 });
    expect(await clock.render('{{ now() }}')).toBe('1700000000');
    expect(clock.renderer.volatile).toBe(true);
    const random = setup();
    expect(await random.render('{{ uuid() }}')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(random.renderer.volatile).toBe(true);
  });
});

describe('TemplateRenderer and the Redactor', () => {
  it('registers every env value it reads, and only those', async () => {
    const { render, redactor } = setup();
    await render('{{ env.ORG_NAME }} {{ env.API_PASS }}');
    expect(redactor.redact(`org acme-corp pass hunter22:pw other ${ENV.UNREAD}`)).toBe(
      `org [REDACTED] pass [REDACTED] other ${ENV.UNREAD}`,
    );
  });

  it('registers a value computed from a secret by a helper', async () => {
    const { render, redactor } = setup();
    await render('{{ upper(env.API_USER) }}');
    expect(redactor.redact('alice-user ALICE-USER')).toBe('[REDACTED] [REDACTED]');
  });

  it('registers every string of a secret value read through let and fromJson that reaches a secret field', async () => {
    const { renderer, redactor } = setup();
    await renderer.defineLets([['sa', 'fromJson(file("/secrets/sa.json"))']]);
    expect((await renderer.render('{{ sa.client_email }}', 'webAPIProviderConfig.body')).sent).toBe(
      'robot@example.iam',
    );
    expect((await renderer.render('{{ sa.private_key }}', 'webAPIProviderConfig.headers.X-Key')).sent).toBe(
      '-----BEGIN PRIVATE KEY-----abc',
    );
    renderer.finish();
    expect(redactor.redact('robot@example.iam -----BEGIN PRIVATE KEY-----abc')).toBe('[REDACTED] [REDACTED]');
  });

  it('registers file() content without its trailing newline', async () => {
    const { render, redactor } = setup();
    await render('{{ file("/secrets/token") }}');
    expect(redactor.redact('Authorization: Bearer file-token-value\n')).toBe('Authorization: Bearer [REDACTED]\n');
  });

  it('registers an interpolation computed from secrets, such as basic auth', async () => {
    const { render, redactor } = setup();
    const header = await render('Basic {{ base64(env.API_USER + ":" + env.API_PASS) }}');
    const encoded = Buffer.from('alice-user:hunter22:pw').toString('base64');
    expect(header).toBe(`Basic ${encoded}`);
    expect(redactor.redact(`authorization: Basic ${encoded}`)).toBe('authorization: Basic [REDACTED]');
  });

  it('registers urlencode and json of a secret', async () => {
    const { render, redactor } = setup();
    const url = await render('{{ urlencode(env.SPECIAL) }}');
    const json = await render('{{ json(env.SPECIAL + "-x") }}');
    expect(redactor.redact(`${url} ${json}`)).toBe('[REDACTED] [REDACTED]');
  });

  it('registers a secret mixed with a var as a whole, and leaves the var alone', async () => {
    const { render, redactor } = setup();
    const value = await render('{{ vars.audience + "/" + env.ORG_NAME }}');
    expect(value).toBe('spaces-api-audience/acme-corp');
    expect(redactor.redact(value)).toBe('[REDACTED]');
    expect(redactor.redact('aud spaces-api-audience')).toBe('aud spaces-api-audience');
  });

  it('does not register vars, cluster values, literals or defaults', async () => {
    const { render, redactor } = setup();
    await render(
      '{{ vars.audience }} {{ vars.scope }} {{ cluster.server }} {{ "literal-value" }} {{ env.UNSET ?? "default-value" }}',
    );
    expect(redactor.size).toBe(0);
    expect(
      redactor.redact('spaces-api-audience read write https://k8s.example.com:6443 literal-value default-value'),
    ).toBe('spaces-api-audience read write https://k8s.example.com:6443 literal-value default-value');
  });

  it('does not register an interpolation of a var that follows a secret one', async () => {
    const { render, redactor } = setup();
    await render('{{ env.ORG_NAME }}/{{ vars.audience }}');
    expect(redactor.redact('acme-corp/spaces-api-audience')).toBe('[REDACTED]/spaces-api-audience');
  });
});
