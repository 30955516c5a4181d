// Secret data used whole: `json(fromJson(env.CFG))` sends every string and number of it, but only the
// whole JSON text was registered, so a server that echoed one field alone (`invalid password …`)
// had it printed. A field read by a member (`fromJson(env.CFG).password`) was already hidden.
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';

const CFG = {
  user: 'svc-account',
  password: 'Hunter2-long-secret',
  pin: 987654,
  nested: { key: 'Deep-secret-string' },
  list: ['List-secret-item'],
};
const ECHOES = ['Hunter2-long-secret', '987654', 'Deep-secret-string', 'List-secret-item'];

async function redactorAfter(template: string): Promise<Redactor> {
  const redactor = new Redactor();
  const renderer = new TemplateRenderer(
    {
      env: { CFG: JSON.stringify(CFG) },
      vars: {},
      cluster: undefined,
      readFile: () => '',
      nowMs: () => 0,
      uuid: () => '00000000-0000-4000-8000-000000000000',
    },
    redactor,
  );
  renderer.setSteps('placeholders');
  await renderer.render(template, 'webAPIProviderConfig.body');
  renderer.finish();
  return redactor;
}

describe('secret data sent whole', () => {
  it.each([
    '{{ json(fromJson(env.CFG)) }}',
    '{{ json({ credentials: fromJson(env.CFG) }) }}',
    '{{ base64(json(fromJson(env.CFG))) }}',
  ])('hides each of its strings and numbers echoed alone: %s', async (template) => {
    const redactor = await redactorAfter(template);
    for (const echo of ECHOES)
      expect(redactor.redact(`the API said: invalid value ${echo}.`)).toBe(`the API said: invalid value ${REDACTED}.`);
  });

  it('hides a part read out of it and sent whole', async () => {
    const redactor = await redactorAfter('{{ json(fromJson(env.CFG).nested) }}');
    expect(redactor.redact('invalid value Deep-secret-string')).toBe(`invalid value ${REDACTED}`);
  });

  it('leaves the text of the config around it: an object literal holding it is not secret throughout', async () => {
    const redactor = await redactorAfter(
      "{{ json({ grant_type: 'client_credentials', credentials: fromJson(env.CFG) }) }}",
    );
    expect(redactor.redact('grant_type client_credentials refused')).toBe('grant_type client_credentials refused');
    expect(redactor.redact('invalid value Hunter2-long-secret')).toBe(`invalid value ${REDACTED}`);
  });

  it('hides nothing of it that did not reach a field', async () => {
    const redactor = await redactorAfter('{{ fromJson(env.CFG).user }}');
    expect(redactor.redact('invalid value Hunter2-long-secret')).toBe('invalid value Hunter2-long-secret');
  });
});
