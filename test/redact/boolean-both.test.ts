// A secret boolean (a step answer's `true`, `fromJson(env.CFG).flag` in a header) is one bit. When
// only its own word was registered, a message that held both words showed the other one and hid
// this one: `"enabled": [REDACTED], "retry": false` says the secret is true.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';

const MESSAGE = '{"enabled": true, "retry": false}';

describe('a secret boolean', () => {
  it.each(['true', 'false'])('registered as %s, shows neither word', (value) => {
    const redactor = new Redactor();
    redactor.add(value);
    const shown = redactor.redact(MESSAGE);
    expect(shown).not.toMatch(/true|false/);
    // The same text whichever the secret is.
    const other = new Redactor();
    other.add(value === 'true' ? 'false' : 'true');
    expect(other.redact(MESSAGE)).toBe(shown);
  });

  it('read from secret data into a header, leaves a message the same for both values', async () => {
    const shown: string[] = [];
    for (const flag of [true, false]) {
      const redactor = new Redactor();
      const renderer = new TemplateRenderer(
        {
          env: { CFG: JSON.stringify({ flag, pin: 'x' }) },
          vars: {},
          cluster: undefined,
          readFile: () => '',
          nowMs: () => 0,
          uuid: () => '00000000-0000-4000-8000-000000000000',
        },
        redactor,
      );
      renderer.setSteps('placeholders');
      const field = await renderer.render('{{ fromJson(env.CFG).flag }}', 'webAPIProviderConfig.headers.X-Flag');
      renderer.finish();
      expect(field.sent).toBe(String(flag));
      shown.push(redactor.redact(MESSAGE));
    }
    expect(shown[0]).toBe(shown[1]);
    expect(shown[0]).not.toMatch(/true|false/);
  });

  it('hides no boolean word when none is secret', () => {
    const redactor = new Redactor();
    redactor.add('a-secret-value');
    expect(redactor.redact(MESSAGE)).toBe(MESSAGE);
  });
});
