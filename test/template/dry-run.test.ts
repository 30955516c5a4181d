// What `validate` and `render` (withholdDecided, the steps as placeholders) show and refuse where a
// value is not known yet: what a step will give, or what a secret decided. They show what a run would
// send, hide what a run would hide, and refuse what every run would refuse.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { validateProviderDocument } from '../../src/config/validate.js';
import { checkPath } from '../../src/credential/jsonpath.js';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';
import { describeRequest, renderRequest } from '../../src/request/build.js';
import { DECIDED_FAILURE } from '../../src/template/problems.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

const ID = 'client-id-Qz81';

function dryRun(env: Record<string, string>, withholdDecided = true) {
  const redactor = new Redactor();
  const renderer = new TemplateRenderer(
    {
      env,
      vars: {},
      cluster: undefined,
      readFile: () => '',
      nowMs: () => 0,
      uuid: () => '00000000-0000-4000-8000-000000000000',
      withholdDecided,
    },
    redactor,
  );
  if (withholdDecided) renderer.setSteps('placeholders');
  return { renderer, redactor };
}

/** What `render` prints of a config's token request (its steps not run), as prepare() builds it. */
async function rendered(config: Record<string, unknown>, env: Record<string, string>): Promise<string> {
  const result = validateProviderDocument(
    { webAPIProviderConfig: { method: 'GET', url: 'https://idp.example.test/token', tokenPath: '$.t', ...config } },
    checkPath,
  );
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const { renderer, redactor } = dryRun(env);
  await renderer.defineLets(result.config.lets);
  const request = await renderRequest(result.config, renderer, '0.0.0-test', () => '', redactor);
  return redactor.redact(describeRequest(request));
}

const LOGIN = { name: 'login', method: 'POST', url: 'https://idp.example.test/login' };

/** The UsageError that `run` rejects with (test/helpers/caught.ts). */
const failure = (run: () => Promise<unknown>): Promise<UsageError> => rejected(UsageError, run());

describe('a secret that reaches a header through a value not known yet', () => {
  // SPEC: a value that also reaches a header is secret everywhere, the URL included. A run registers
  // env.ID where basicAuth() sends it; render and validate must hide it as well, or their output
  // (meant to be pasted into an issue) shows a client id that every --verbose trace hides.
  it.each([
    ['a step answer beside it', '{{ basicAuth(env.ID, steps.login.secret) }}'],
    ['a step answer beside it, in text', 'Basic {{ basicAuth(env.ID, steps.login.secret) }}'],
    ['a branch a secret chose', '{{ env.S > "m" ? env.ID : "none-given" }}'],
    ['a key a secret chose', '{{ { a: env.ID, b: "none-given" }[env.S > "m" ? "a" : "b"] }}'],
  ])('is hidden in the URL by render, as by a run: %s', async (_name, header) => {
    const { renderer, redactor } = dryRun({ ID, S: 'zulu-S3cr3t-22' });
    await renderer.render(header, 'webAPIProviderConfig.headers.Authorization');
    const url = await renderer.render(
      `https://idp.example.test/clients/{{ env.ID }}/token`,
      'webAPIProviderConfig.url',
      'url',
    );
    renderer.finish();
    expect(redactor.redact(url.shown)).toBe(`https://idp.example.test/clients/${REDACTED}/token`);
  });

  it('a run hides it the same way', async () => {
    const { renderer, redactor } = dryRun({ ID, S: 'zulu-S3cr3t-22' }, false);
    renderer.setSteps({ login: { secret: 'step-secret-Jx4' } });
    await renderer.render('{{ basicAuth(env.ID, steps.login.secret) }}', 'webAPIProviderConfig.headers.Authorization');
    const url = await renderer.render(
      `https://idp.example.test/clients/{{ env.ID }}/token`,
      'webAPIProviderConfig.url',
      'url',
    );
    renderer.finish();
    expect(redactor.redact(url.shown)).toBe(`https://idp.example.test/clients/${REDACTED}/token`);
  });

  it('a value that reaches only the URL path is shown, as SPEC says', async () => {
    const { renderer, redactor } = dryRun({ ID });
    const url = await renderer.render(
      `https://idp.example.test/clients/{{ env.ID }}/token`,
      'webAPIProviderConfig.url',
      'url',
    );
    renderer.finish();
    expect(redactor.redact(url.shown)).toBe(`https://idp.example.test/clients/${ID}/token`);
  });
});

describe('a member read by a key a secret chose', () => {
  it('a run reads the member the key names', async () => {
    for (const [S, expected] of [
      ['zulu-S3cr3t-22', 'gold-Vx1'],
      ['Alpha-S3cr3t-1', 'silver-Vx2'],
    ]) {
      const { renderer } = dryRun({ S: S! }, false);
      const field = await renderer.render(
        '{{ { a: "gold-Vx1", b: "silver-Vx2" }[env.S > "m" ? "a" : "b"] }}',
        'webAPIProviderConfig.headers.X',
      );
      renderer.finish();
      expect(field.sent).toBe(expected);
    }
  });

  // What the key would read is withheld, but the object does not depend on it: a run that fails
  // for every value of the secret (an unset variable, a --set value not given) fails validate too,
  // with the same line, as the README promises ("validate refuses what get-token refuses").
  it.each([
    [
      'an object from an unset variable',
      '{{ fromJson(env.CFG)[env.S > "m" ? "a" : "b"] }}',
      'webAPIProviderConfig.headers.X: {{ fromJson(env.CFG)[env.S > "m" ? "a" : "b"] }}: env.CFG is not set (set it in the environment or the kubeconfig exec env)',
    ],
    [
      'an object inside a literal, from an unset variable',
      '{{ { a: fromJson(env.CFG) }.a[env.S > "m" ? "a" : "b"] }}',
      'webAPIProviderConfig.headers.X: {{ { a: fromJson(env.CFG) }.a[env.S > "m" ? "a" : "b"] }}: env.CFG is not set (set it in the environment or the kubeconfig exec env)',
    ],
    [
      'a --set value not given',
      '{{ vars.nope[env.S > "m" ? "a" : "b"] }}',
      'webAPIProviderConfig.headers.X: {{ vars.nope[env.S > "m" ? "a" : "b"] }}: vars.nope is not set (pass --set nope=…, or give a default: vars.nope ?? "…")',
    ],
    [
      'a --set value not given, read by a secret key',
      '{{ vars.nope[env.S] }}',
      'webAPIProviderConfig.headers.X: {{ vars.nope[env.S] }}: vars.nope is not set (pass --set nope=…, or give a default: vars.nope ?? "…")',
    ],
    ['the cluster info, not sent', '{{ cluster.extra[env.S > "m" ? "a" : "b"] }}', DECIDED_FAILURE],
    ['the cluster info itself, not sent', '{{ cluster[env.S > "m" ? "server" : "config"] }}', DECIDED_FAILURE],
    ['the cluster info, read by a secret key', '{{ cluster[env.S] }}', DECIDED_FAILURE],
    ['text, which has no members', '{{ "text"[env.S > "m" ? "a" : "b"] }}', DECIDED_FAILURE],
  ])('validate refuses %s as every run does, for every value of the secret', async (_name, template, message) => {
    for (const S of ['zulu-S3cr3t-22', 'Alpha-S3cr3t-1']) {
      for (const withhold of [false, true]) {
        const { renderer } = dryRun({ S }, withhold);
        const error = await failure(async () => {
          await renderer.render(template, 'webAPIProviderConfig.headers.X');
          renderer.finish();
        });
        expect(error.message).toBe(message);
        expect(error.message).not.toContain(S);
      }
    }
  });

  it('a default after it is given by validate as by a run, and shown as [REDACTED] by both', async () => {
    for (const withhold of [false, true]) {
      const { renderer } = dryRun({ S: 'zulu-S3cr3t-22' }, withhold);
      const field = await renderer.render('{{ vars.nope[env.S] ?? "none" }}', 'webAPIProviderConfig.headers.X');
      expect(() => renderer.finish()).not.toThrow();
      // Whether the default was taken is what the key read: a secret, too short to show.
      expect(field.shown).toBe(REDACTED);
    }
  });

  it('env read by a name a secret chose is withheld by validate and render', async () => {
    const { renderer } = dryRun({ S: 'zulu-S3cr3t-22', A: 'value-of-a-Zx1' });
    const field = await renderer.render('{{ env[env.S > "m" ? "A" : "B"] }}', 'webAPIProviderConfig.headers.X');
    renderer.finish();
    expect(field.shown).toBe(REDACTED);
    expect(field.sent).toBe('[a secret decides]');
  });
});

describe('what a step will give, compared', () => {
  // render does not know the answer: a header that a comparison of it decides is not shown as one
  // branch, which would tell the author that the run sends "user" whatever the step answers.
  it.each([
    ['{{ steps.login.role == "admin" ? "admin-Rq7" : "user-Rq7" }}'],
    ['{{ lower(steps.login.role) == "admin" ? "admin-Rq7" : "user-Rq7" }}'],
    ['{{ steps.login.roles[0] === "admin" ? "admin-Rq7" : "user-Rq7" }}'],
  ])('%s is shown as [REDACTED] by render', async (header) => {
    const text = await rendered({ steps: [LOGIN], headers: { 'X-Role': header } }, {});
    expect(text).toContain(`X-Role: ${REDACTED}\n`);
    expect(text).not.toMatch(/(admin|user)-Rq7/);
  });
});

describe('a member of a value a secret chose', () => {
  const urls = '(env.S > "m" ? { u: "https://a.example.test/token" } : { u: "https://b.example.test/token" })';

  it('validate and render pass its URL unchecked and show it as [REDACTED], for every value of the secret', async () => {
    for (const S of ['zulu-S3cr3t-22', 'Alpha-S3cr3t-1']) {
      const text = await rendered({ url: `{{ ${urls}.u }}`, headers: { 'X-Host': `{{ ${urls}["u"] }}` } }, { S });
      expect(text).toBe(
        `GET ${REDACTED}\naccept: application/json\nuser-agent: webapi-credential/0.0.0-test\nX-Host: ${REDACTED}\n`,
      );
    }
  });
});

describe('a member read by a key a step answers', () => {
  const header = '{{ { admin: "admin-scope-Rq7", user: "user-scope-Rq7" }[steps.login.role] }}';

  it('render shows it as [REDACTED]: the key is not known yet', async () => {
    const text = await rendered({ steps: [LOGIN], headers: { 'X-Scope': header } }, {});
    expect(text).toContain(`X-Scope: ${REDACTED}\n`);
    expect(text).not.toMatch(/scope-Rq7/);
  });

  it('get-token renders it before the steps run (their answers placeholders), then reads it from the answer', async () => {
    const { renderer } = dryRun({}, false);
    renderer.setSteps('placeholders');
    await renderer.render(header, 'webAPIProviderConfig.headers.X-Scope');
    await renderer.render('{{ steps.login[steps.login.pick] }}', 'webAPIProviderConfig.headers.X-Pick');
    expect(() => renderer.finish()).not.toThrow();
    renderer.setSteps({ login: { role: 'user', pick: 'role' } });
    expect((await renderer.render(header, 'webAPIProviderConfig.headers.X-Scope')).sent).toBe('user-scope-Rq7');
    expect(
      (await renderer.render('{{ steps.login[steps.login.pick] }}', 'webAPIProviderConfig.headers.X-Pick')).sent,
    ).toBe('user');
    renderer.finish();
  });

  it('a failure beside it says as little before the steps run as after', async () => {
    const template = '{{ { a: "x" }[steps.login.role] + fromJson("{") }}';
    for (const steps of ['placeholders' as const, { login: { role: 'a' } }]) {
      const { renderer } = dryRun({}, false);
      renderer.setSteps(steps);
      const error = await failure(async () => {
        await renderer.render(template, 'webAPIProviderConfig.headers.X-Scope');
        renderer.finish();
      });
      expect(error.message).toBe(DECIDED_FAILURE);
    }
  });

  it('env read by a name a step answers is not known before the steps run; then it is read', async () => {
    const { renderer } = dryRun({ TOKEN_A: 'token-a-value-Zx1' }, false);
    renderer.setSteps('placeholders');
    expect((await renderer.render('{{ env[steps.login.variable] }}', 'webAPIProviderConfig.headers.X')).shown).toBe(
      REDACTED,
    );
    renderer.setSteps({ login: { variable: 'TOKEN_A' } });
    expect((await renderer.render('{{ env[steps.login.variable] }}', 'webAPIProviderConfig.headers.X')).sent).toBe(
      'token-a-value-Zx1',
    );
    renderer.finish();
  });

  it('a default after a member of a null object is given before the steps run as after', async () => {
    const template = '{{ fromJson(env.CFG).scopes[steps.login.role] ?? "default-scope" }}';
    for (const steps of ['placeholders' as const, { login: { role: 'admin' } }]) {
      const { renderer } = dryRun({ CFG: '{"scopes":null}' }, false);
      renderer.setSteps(steps);
      expect((await renderer.render(template, 'webAPIProviderConfig.headers.X')).sent).toBe('default-scope');
      renderer.finish();
    }
  });

  it('validate refuses it where every run fails: the object is not set', async () => {
    const { renderer } = dryRun({});
    const error = await failure(async () => {
      await renderer.render('{{ vars.scopes[steps.login.role] }}', 'webAPIProviderConfig.headers.X-Scope');
      renderer.finish();
    });
    expect(error.message).toBe(
      'webAPIProviderConfig.headers.X-Scope: {{ vars.scopes[steps.login.role] }}: vars.scopes is not set (pass --set scopes=…, or give a default: vars.scopes ?? "…")',
    );
  });
});
