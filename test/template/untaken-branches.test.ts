// A condition of config values evaluates only the branch it takes: the other may read what is not
// set, or be of another kind (`vars.tier === "gold" ? env.GOLD_KEY : env.SILVER_KEY` with only one
// of them set). And what `validate`/`render` show for a value a step will give names it exactly.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';

function renderer(env: Record<string, string> = {}) {
  return new TemplateRenderer(
    {
      env,
      vars: { tier: 'gold' },
      cluster: undefined,
      readFile: () => '',
      nowMs: () => 0,
      uuid: () => '00000000-0000-4000-8000-000000000000',
    },
    new Redactor(),
  );
}

async function render(template: string, env: Record<string, string> = {}, steps?: 'placeholders'): Promise<string> {
  const r = renderer(env);
  if (steps) r.setSteps(steps);
  const text = (await r.render(template, 'webAPIProviderConfig.headers.X')).sent;
  r.finish();
  return text;
}

describe('a condition of config values', () => {
  it.each<[string, string]>([
    ['vars.tier === "gold" ? env.GOLD_KEY : env.SILVER_KEY', 'gold-key-value-1'],
    ['vars.tier !== "gold" ? env.SILVER_KEY : env.GOLD_KEY', 'gold-key-value-1'],
    ['vars.tier === "gold" ? "text" : 2', 'text'],
    ['vars.tier === "gold" ? "text" : null', 'text'],
    ['vars.tier === "gold" ? "text" : ["a", "list"]', 'text'],
  ])('{{ %s }} gives %s, whatever the other branch holds', async (expression, expected) => {
    expect(await render(`{{ ${expression} }}`, { GOLD_KEY: 'gold-key-value-1' })).toBe(expected);
  });
});

describe('a condition a secret decides', () => {
  it('takes a branch that read an unset variable and gave its default', async () => {
    expect(await render('{{ env.S > "m" ? (env.UNSET ?? "dflt-value") : "other" }}', { S: 'zulu-S3cr3t-22' })).toBe(
      'dflt-value',
    );
    expect(await render('{{ env.S > "m" ? "other" : (env.UNSET ?? "dflt-value") }}', { S: 'Alpha-S3cr3t-1' })).toBe(
      'dflt-value',
    );
  });
});

describe('what a step will give, shown by validate and render', () => {
  it.each<[string, string]>([
    ['steps.login.token', '[steps.login.token]'],
    ['steps.login["token-1"]', '[steps.login["token-1"]]'],
    ['steps.login["1a"]', '[steps.login["1a"]]'],
    ['steps.login["a-b"].c', '[steps.login["a-b"].c]'],
    ['base64(steps.login.token)', '[base64(...)]'],
    ['"Bearer " + steps.login.token', 'Bearer [steps.login.token]'],
  ])('{{ %s }} shows as %s', async (expression, shown) => {
    expect(await render(`{{ ${expression} }}`, {}, 'placeholders')).toBe(shown);
  });
});

describe('what a test of a secret shows in the URL', () => {
  async function shownUrl(template: string, env: Record<string, string>): Promise<string> {
    const redactor = new Redactor();
    const r = new TemplateRenderer(
      {
        env,
        vars: {},
        cluster: undefined,
        readFile: () => '',
        nowMs: () => 0,
        uuid: () => '00000000-0000-4000-8000-000000000000',
      },
      redactor,
    );
    const field = await r.render(template, 'webAPIProviderConfig.url', 'url');
    r.finish();
    // As an error message would show it: what the renderer shows, then what the redactor hides.
    return redactor.redact(field.shown);
  }

  // Whether a secret string is set tells nothing of what it holds: a host given or defaulted is shown.
  it.each<[string, Record<string, string>, string]>([
    [
      'https://{{ env.HOST || "api.example.test" }}/token',
      { HOST: 'idp.example.test' },
      'https://idp.example.test/token',
    ],
    [
      'https://{{ env.HOST ?? "api.example.test" }}/token',
      { HOST: 'idp.example.test' },
      'https://idp.example.test/token',
    ],
    [
      'https://{{ env.HOST && "api.example.test" }}/token',
      { HOST: 'idp.example.test' },
      'https://api.example.test/token',
    ],
    [
      'https://{{ env.HOST ? env.HOST : "api.example.test" }}/token',
      { HOST: 'idp.example.test' },
      'https://idp.example.test/token',
    ],
  ])('%s shows the host', async (template, env, shown) => {
    expect(await shownUrl(template, env)).toBe(shown);
  });

  // Whether a secret number, boolean or null is truthy or set is what it holds: one bit of it.
  it.each<[string, Record<string, string>]>([
    ['https://api.example.test/{{ fromJson(env.CFG) ?? "none" }}', { CFG: 'null' }],
    ['https://api.example.test/{{ fromJson(env.CFG) || "none" }}', { CFG: '0' }],
    ['https://api.example.test/{{ fromJson(env.CFG) ? "on" : "off" }}', { CFG: 'false' }],
    ['https://api.example.test/{{ !fromJson(env.CFG) }}', { CFG: '1234' }],
    ['https://api.example.test/{{ fromJson(env.CFG).a.b ?? "none" }}', { CFG: '{}' }],
    ['https://api.example.test/{{ env[env.NAME] ?? "none" }}', { NAME: 'UNSET_NAME' }],
    ['https://api.example.test/{{ "prefix-" + (env.S > "m" ? "alpha" : "bravo") }}', { S: 'zulu-S3cr3t-22' }],
  ])('%s hides the path a secret chose', async (template, env) => {
    expect(await shownUrl(template, env)).toBe('https://api.example.test/[REDACTED]');
  });
});
