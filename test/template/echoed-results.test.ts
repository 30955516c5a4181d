// A value computed from a secret and sent inside a longer field is hidden when a server echoes it
// alone: the renderer registers the whole field, so each secret part must be registered in its own
// right — the text a helper gives (a decoded secret, a number read from JSON), a file's content, a
// number read out of secret data, a sum of secret numbers. A config author writes each of these.
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';

const ENV = {
  B64: Buffer.from('decoded-secret-Kx9').toString('base64'),
  PIN: '9.8765432e7',
  FLAG: ' true ',
  CFG: '{"pin": 7654321, "on": false, "name": "cfg-user-Zq8"}',
  NUM: '1234567',
  NULLS: '{"a": null, "b": [null, true, "null-kept-secret-Vx1"]}',
  CREDS: '{"token": "creds-token-Hq4", "list": ["first-token-Pp2", "second-token-Rr7"]}',
};

async function afterRendering(template: string): Promise<{ sent: string; redactor: Redactor }> {
  const redactor = new Redactor();
  const renderer = new TemplateRenderer(
    {
      env: ENV,
      vars: {},
      cluster: undefined,
      readFile: () => 'file-content-Vv2',
      nowMs: () => 0,
      uuid: () => '00000000-0000-4000-8000-000000000000',
    },
    redactor,
  );
  const sent = (await renderer.render(template, 'webAPIProviderConfig.headers.Authorization')).sent;
  renderer.finish();
  return { sent, redactor };
}

describe('a secret part of a longer field, echoed alone', () => {
  it.each<[string, string, string]>([
    ['the text base64decode() gives', '{{ "Bearer " + base64decode(env.B64) }}', 'decoded-secret-Kx9'],
    ['a number fromJson() gives', '{{ "pin " + fromJson(env.PIN) }}', '98765432'],
    ["a file's content", '{{ "Bearer " + file("/etc/token") }}', 'file-content-Vv2'],
    ['a number read out of secret JSON', '{{ "pin " + fromJson(env.CFG).pin }}', '7654321'],
    ["a file's content inside json()", '{{ json({ key: file("/etc/token") }) }}', 'file-content-Vv2'],
    ['the text base64decode() gives inside json()', '{{ json({ v: base64decode(env.B64) }) }}', 'decoded-secret-Kx9'],
    ['a string read out of secret JSON', '{{ "Bearer " + fromJson(env.CREDS).token }}', 'creds-token-Hq4'],
    ['a string read out of a list in secret JSON', '{{ "Bearer " + fromJson(env.CREDS).list[1] }}', 'second-token-Rr7'],
    ['a sum of a secret number', '{{ "pin " + (fromJson(env.NUM) + 1) }}', '1234568'],
  ])('%s: %s', async (_what, template, echoed) => {
    const { sent, redactor } = await afterRendering(template);
    expect(sent).toContain(echoed);
    expect(redactor.redact(`401: credential ${echoed} is not valid`)).toBe(`401: credential ${REDACTED} is not valid`);
  });

  it('secret JSON with nulls in it, sent whole: each string still hidden alone', async () => {
    for (const template of [
      '{{ json(fromJson(env.NULLS)) }}',
      '{{ json({ grant: "x", data: fromJson(env.NULLS) }) }}',
    ]) {
      const { sent, redactor } = await afterRendering(template);
      expect(sent).toContain('[null,true,"null-kept-secret-Vx1"]');
      expect(redactor.redact('bad value null-kept-secret-Vx1')).toBe(`bad value ${REDACTED}`);
    }
  });

  it('the secret JSON a number was read out of is hidden whole, as when it is sent whole', async () => {
    const { redactor } = await afterRendering('{{ "pin " + fromJson(env.CFG).pin }}');
    expect(redactor.redact(`config ${ENV.CFG} refused`)).toBe(`config ${REDACTED} refused`);
  });

  it('a boolean read out of secret JSON is a secret in its text form', async () => {
    const { sent, redactor } = await afterRendering('{{ "flag=" + fromJson(env.CFG).on }}');
    expect(sent).toBe('flag=false');
    expect(redactor.redact('flag false refused')).toBe(`flag ${REDACTED} refused`);
  });

  it('leaves the text of the config: a helper of config text, and the keys of an object literal', async () => {
    const { redactor } = await afterRendering(
      '{{ "Basic " + base64("user") + ":" + fromJson(env.CFG).name + json({ grant: "password-grant" }) }}',
    );
    expect(redactor.redact('user dXNlcg== password-grant cfg-user-Zq8')).toBe(
      `user dXNlcg== password-grant ${REDACTED}`,
    );
  });
});
