// A condition of config values evaluates only the branch it takes: the other may read what is not
// set, or be of another kind (`vars.tier === "gold" ? env.GOLD_KEY : env.SILVER_KEY` with only one
// of them set). And what `validate`/`render` show for a value a step will give names it exactly.
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';

function renderer(env: Record<string, string> = {}) {
  return new TemplateRenderer({ env, vars: { tier: 'gold' }, cluster: undefined, readFile: () => '', nowMs: () => 0, uuid: () => '00000000-0000-4000-8000-000000000000' }, new Redactor());
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
