// Templates: Eta with {{ }}, no HTML escaping, strict about undefined/null, and every value derived
// from a secret registered with the Redactor as it is read.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { Redactor } from '../src/redact.js';
import { TemplateRenderer, type TemplateScope } from '../src/template.js';
import { caught } from './helpers/caught.js';

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
        if (content === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
        return content;
      },
      ...scope,
    },
    redactor,
  );
  return { renderer, redactor, render: (template: string, where = 'webAPIProviderConfig.url') => renderer.render(template, where) };
}

describe('TemplateRenderer', () => {
  it.each([
    ['a text without tags unchanged', 'https://auth.example.com/token', 'https://auth.example.com/token'],
    ['an env value', 'org={{ env.ORG_NAME }}', 'org=acme-corp'],
    ['an env value without spaces in the tag', '{{env.ORG_NAME}}', 'acme-corp'],
    ['an env value with a dash in its name', '{{ env["MY-VAR"] }}', 'dashed-value'],
    ['a set but empty env value as empty', '[{{ env.EMPTY }}]', '[]'],
    ['a default for an unset env value', '{{ env.NOT_SET ?? "fallback" }}', 'fallback'],
    ['a default for an unset env value inside a concatenation', '{{ "id:" + (env.NOT_SET ?? "anonymous") }}', 'id:anonymous'],
    ['the value, not the default, when the env value is set', '{{ env.ORG_NAME ?? "fallback" }}', 'acme-corp'],
    ['a var', 'aud={{ vars.audience }}', 'aud=spaces-api-audience'],
    ['a default for an unset var', '{{ vars.nope ?? "d" }}', 'd'],
    ['the cluster server', '{{ cluster.server }}', 'https://k8s.example.com:6443'],
    ['a kebab-case cluster key', '{{ cluster["certificate-authority-data"] }}', 'Q0EtREFUQQ=='],
    ['the cluster config as JSON', '{{ json(cluster.config) }}', '{"webAPIProviderConfig":{"method":"POST"}}'],
    ['urlencode', '{{ urlencode(env.SPECIAL) }}', 'a%20b%26c%2Fd%3F%C3%A9'],
    ['base64', '{{ base64(env.API_USER + ":" + env.API_PASS) }}', Buffer.from('alice-user:hunter22:pw').toString('base64')],
    ['base64 of non-ASCII text as UTF-8', '{{ base64("é") }}', 'w6k='],
    ['base64decode', '{{ base64decode("aGVsbG8gd29ybGQ=") }}', 'hello world'],
    ['json of a string', '{{ json(env.SPECIAL) }}', '"a b&c/d?é"'],
    ['json of a list', '{{ json([1, "a"]) }}', '[1,"a"]'],
    ['a number', 'n={{ 40 + 2 }}', 'n=42'],
    ['a boolean', '{{ env.ORG_NAME === "acme-corp" }}', 'true'],
    ['HTML-special characters unescaped', `<&>"'{{ "<&>\\"'" }}`, `<&>"'<&>"'`],
    ['a file, trimming one trailing newline', '[{{ file("/secrets/token") }}]', '[file-token-value]'],
    ['a file, trimming one trailing CRLF', '[{{ file("/secrets/crlf") }}]', '[crlf-token-value]'],
    ['a file, trimming only one of two trailing newlines', '[{{ file("/secrets/two-newlines") }}]', '[two-newlines-value\n]'],
    ['a file without a trailing newline', '[{{ file("/secrets/none") }}]', '[no-newline-value]'],
    ['two interpolations', '{{ vars.audience }}/{{ env.ORG_NAME }}', 'spaces-api-audience/acme-corp'],
    ['a code block for a condition', '{{% if (env.ORG_NAME) { }}yes{{% } else { }}no{{% } }}', 'yes'],
  ])('renders %s', (_name, template, expected) => {
    expect(setup().render(template)).toBe(expected);
  });

  it.each([
    ['an unset env value', '{{ env.ORG_NAM }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ env.ORG_NAM }}: env.ORG_NAM is not set (set it in the environment or the kubeconfig exec env, or give a default: env.ORG_NAM ?? "…")'],
    ['an unset env value with a dash', '{{ env["NO-SUCH"] }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ env["NO-SUCH"] }}: env["NO-SUCH"] is not set'],
    ['an unset var', 'a={{ vars.audience }}&b={{ vars.scop }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ vars.scop }}: vars.scop is not set (pass --set scop=…, or give a default: vars.scop ?? "…")'],
    ['an unset env value given to a helper', '{{ urlencode(env.MISSING) }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ urlencode(env.MISSING) }}: env.MISSING is not set (set it in the environment or the kubeconfig exec env, or give a default: env.MISSING ?? "…")'],
    ['null given to a helper', '{{ base64(null) }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ base64(null) }}: base64() was given null'],
    ['a missing cluster key', '{{ cluster.nope }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ cluster.nope }}: yields undefined'],
    ['a null literal', '{{ null }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ null }}: yields null'],
    ['an object', '{{ cluster.config }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ cluster.config }}: yields an object; wrap it in json(…)'],
    ['a list', '{{ [1, 2] }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ [1, 2] }}: yields an object; wrap it in json(…)'],
    ['an unknown name', '{{ nope }}', 'TEMPLATE_EVAL', 'webAPIProviderConfig.url: {{ nope }}: nope is not defined'],
    ['an unknown helper', '{{ sha256(env.ORG_NAME) }}', 'TEMPLATE_EVAL', 'webAPIProviderConfig.url: {{ sha256(env.ORG_NAME) }}: sha256 is not defined'],
    ['an unreadable file', '{{ file("/secrets/missing") }}', 'TEMPLATE_FILE', 'webAPIProviderConfig.url: {{ file("/secrets/missing") }}: file("/secrets/missing") cannot be read: ENOENT'],
    ['an unset env value concatenated into a string', '{{ vars.audience + ":" + env.CLIENT_SECRET }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ vars.audience + ":" + env.CLIENT_SECRET }}: env.CLIENT_SECRET is not set (set it in the environment or the kubeconfig exec env, or give a default: env.CLIENT_SECRET ?? "…")'],
    ['an unset env value concatenated inside a helper', '{{ base64(env.API_USER + ":" + env.NO_PASS) }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ base64(env.API_USER + ":" + env.NO_PASS) }}: env.NO_PASS is not set (set it in the environment or the kubeconfig exec env, or give a default: env.NO_PASS ?? "…")'],
    ['an unset var in a template literal', '{{ `aud=${vars.missing}` }}', 'TEMPLATE_VALUE', 'webAPIProviderConfig.url: {{ `aud=${vars.missing}` }}: vars.missing is not set (pass --set missing=…, or give a default: vars.missing ?? "…")'],
    ['an unclosed tag', 'x {{ env.ORG_NAME', 'TEMPLATE_SYNTAX', 'webAPIProviderConfig.url: template error: unclosed tag at line 1 col 3'],
    ['an unclosed string', '{{ "abc }}', 'TEMPLATE_SYNTAX', 'webAPIProviderConfig.url: template error: unclosed string at line 1 col 4'],
  ])('reports %s with the field and the expression', (_name, template, code, message) => {
    const error = caught(UsageError, () => setup().render(template));
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it('reports a JavaScript syntax error as a template syntax error', () => {
    const error = caught(UsageError, () => setup().render('{{ 1 + }}', 'webAPIProviderConfig.headers.X-A'));
    expect(error.code).toBe('TEMPLATE_SYNTAX');
    expect(error.message).toMatch(/^webAPIProviderConfig\.headers\.X-A: template error: \S/);
  });

  it('names the error of the second interpolation, not the first', () => {
    const error = caught(UsageError, () => setup().render('{{ env.ORG_NAME }}-{{ env.SECOND_MISSING }}', 'webAPIProviderConfig.body'));
    expect(error.message).toBe(
      'webAPIProviderConfig.body: {{ env.SECOND_MISSING }}: env.SECOND_MISSING is not set (set it in the environment or the kubeconfig exec env, or give a default: env.SECOND_MISSING ?? "…")',
    );
  });

  it('tells how to get spec.cluster when a template reads cluster and client-go sent none', () => {
    const error = caught(UsageError, () => setup({ cluster: undefined }).render('{{ cluster.server }}'));
    expect(error.code).toBe('TEMPLATE_EVAL');
    expect(error.message).toBe(
      "webAPIProviderConfig.url: {{ cluster.server }}: Cannot read properties of undefined (reading 'server') (KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry)",
    );
  });

  it('keeps the cause of an unreadable file', () => {
    const error = caught(UsageError, () => setup().render('{{ file("/secrets/missing") }}'));
    expect((error.cause as UsageError).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('does not leak the value of a set env variable in an error about another', () => {
    const error = caught(UsageError, () => setup().render('{{ env.API_PASS }}{{ env.NOPE }}'));
    expect(error.message).not.toContain(ENV.API_PASS);
  });
});

describe('TemplateRenderer and the Redactor', () => {
  it('registers every env value it reads, and only those', () => {
    const { render, redactor } = setup();
    render('{{ env.ORG_NAME }} {{ env.API_PASS }}');
    expect(redactor.redact(`org acme-corp pass hunter22:pw other ${ENV.UNREAD}`)).toBe(`org [REDACTED] pass [REDACTED] other ${ENV.UNREAD}`);
  });

  it('registers an env value read in a code block', () => {
    const { render, redactor } = setup();
    render('{{% const user = env.API_USER.toUpperCase() }}{{ user }}');
    expect(redactor.redact('alice-user ALICE-USER')).toBe('[REDACTED] [REDACTED]');
  });

  it('registers file() content without its trailing newline', () => {
    const { render, redactor } = setup();
    render('{{ file("/secrets/token") }}');
    expect(redactor.redact('Authorization: Bearer file-token-value\n')).toBe('Authorization: Bearer [REDACTED]\n');
  });

  it('registers an interpolation computed from secrets, such as basic auth', () => {
    const { render, redactor } = setup();
    const header = render('Basic {{ base64(env.API_USER + ":" + env.API_PASS) }}');
    const encoded = Buffer.from('alice-user:hunter22:pw').toString('base64');
    expect(header).toBe(`Basic ${encoded}`);
    expect(redactor.redact(`authorization: Basic ${encoded}`)).toBe('authorization: Basic [REDACTED]');
  });

  it('registers urlencode and json of a secret', () => {
    const { render, redactor } = setup();
    const url = render('{{ urlencode(env.SPECIAL) }}');
    const json = render('{{ json(env.SPECIAL + "-x") }}');
    expect(redactor.redact(`${url} ${json}`)).toBe('[REDACTED] [REDACTED]');
  });

  it('registers a secret mixed with a var as a whole, and leaves the var alone', () => {
    const { render, redactor } = setup();
    const value = render('{{ vars.audience + "/" + env.ORG_NAME }}');
    expect(value).toBe('spaces-api-audience/acme-corp');
    expect(redactor.redact(value)).toBe('[REDACTED]');
    expect(redactor.redact('aud spaces-api-audience')).toBe('aud spaces-api-audience');
  });

  it('does not register vars, cluster values, literals or defaults', () => {
    const { render, redactor } = setup();
    render('{{ vars.audience }} {{ vars.scope }} {{ cluster.server }} {{ "literal-value" }} {{ env.UNSET ?? "default-value" }}');
    expect(redactor.size).toBe(0);
    expect(redactor.redact('spaces-api-audience read write https://k8s.example.com:6443 literal-value default-value')).toBe(
      'spaces-api-audience read write https://k8s.example.com:6443 literal-value default-value',
    );
  });

  it('does not register an interpolation of a var that follows a secret one', () => {
    const { render, redactor } = setup();
    render('{{ env.ORG_NAME }}/{{ vars.audience }}');
    expect(redactor.redact('acme-corp/spaces-api-audience')).toBe('[REDACTED]/spaces-api-audience');
  });

  it('registers env values read through process.env too', () => {
    const { render, redactor } = setup();
    expect(render('{{ process.env.API_PASS }}')).toBe('hunter22:pw');
    expect(redactor.redact('pass hunter22:pw')).toBe('pass [REDACTED]');
  });
});
