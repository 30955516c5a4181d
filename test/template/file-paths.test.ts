// file() reads a path written in the config relative to the config's directory, and one that came
// from outside (env, vars) relative to the current directory; a failure names the path tried, unless
// a secret chose it (which file failed would tell the secret).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { DECIDED_FAILURE } from '../../src/template/problems.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

const FILES: Record<string, string> = {
  '/cfg/token': 'token-from-config-dir\n',
  '/cwd/token': 'token-from-cwd\n',
  '/cfg/where': 'token\n',
  '/hosts/a': 'idp-a.example.test\n',
  '/hosts/b': 'idp-b.example.test\n',
};

function setup(env: Record<string, string> = {}, steps?: Record<string, unknown>) {
  const redactor = new Redactor();
  const tried: Array<[string, boolean | undefined]> = [];
  const where = (path: string, fromConfig?: boolean) =>
    path.startsWith('/') ? path : `${fromConfig ? '/cfg' : '/cwd'}/${path}`;
  const renderer = new TemplateRenderer(
    {
      env,
      vars: { name: 'token', gone: 'gone' },
      cluster: { tokenFile: 'token' },
      readFile: (path, fromConfig) => {
        tried.push([path, fromConfig]);
        const content = FILES[where(path, fromConfig)];
        if (content === undefined)
          throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
        return content;
      },
      pathTried: where,
      nowMs: () => 0,
      uuid: randomUUID,
    },
    redactor,
  );
  if (steps) renderer.setSteps(steps);
  const render = async (template: string) => {
    const text = (await renderer.render(template, 'webAPIProviderConfig.headers.X')).sent;
    renderer.finish();
    return text;
  };
  /** The URL as a run's --verbose trace or message shows it: up to its query, unless a secret chose it. */
  const shownUrl = async (template: string) => {
    const field = await renderer.render(template, 'webAPIProviderConfig.url', 'url');
    renderer.finish();
    return redactor.redact(field.shown);
  };
  return { render, shownUrl, tried };
}

const failure = (promise: Promise<unknown>): Promise<UsageError> => rejected(UsageError, promise);

describe('file() paths', () => {
  it.each<[string, string, Record<string, string>, string]>([
    ['a path written in the config, from its directory', '{{ file("token") }}', {}, 'token-from-config-dir'],
    ['a path built from config text only, from its directory', '{{ file("to" + "ken") }}', {}, 'token-from-config-dir'],
    ['a path from vars, from the current directory', '{{ file(vars.name) }}', {}, 'token-from-cwd'],
    ['a path from the cluster info, from the current directory', '{{ file(cluster.tokenFile) }}', {}, 'token-from-cwd'],
    [
      'a path from env, from the current directory',
      '{{ file(env.TOKEN_FILE) }}',
      { TOKEN_FILE: 'token' },
      'token-from-cwd',
    ],
    [
      'a path computed from config text, from its directory',
      '{{ file("to" + lower("KEN")) }}',
      {},
      'token-from-config-dir',
    ],
    [
      'a path joined from config text and a var, from the current directory',
      '{{ file("" + vars.name) }}',
      {},
      'token-from-cwd',
    ],
    [
      'a path chosen by a var, from the current directory',
      '{{ file(vars.name === "token" ? "token" : "other") }}',
      {},
      'token-from-cwd',
    ],
    // Chosen by an unset variable: the same directory as when it is set (TOKEN_FILE=token).
    [
      'a default after an unset env variable, from the current directory',
      '{{ file(env.TOKEN_FILE ?? "token") }}',
      {},
      'token-from-cwd',
    ],
    [
      'a default after an unset env variable, read by name, from the current directory',
      '{{ file(env["TOKEN_FILE"] || "token") }}',
      {},
      'token-from-cwd',
    ],
    [
      'a path chosen by config text alone, from its directory',
      '{{ file(1 > 2 ? "other" : "token") }}',
      {},
      'token-from-config-dir',
    ],
    ['a default after config text, from its directory', '{{ file(null ?? "token") }}', {}, 'token-from-config-dir'],
    // A file that names another (a mounted secret holding the path of a key) names it as env would.
    ['a path read from a file, from the current directory', '{{ file(file("where")) }}', {}, 'token-from-cwd'],
  ])('reads %s', async (_name, template, env, expected) => {
    expect(await setup(env).render(template)).toBe(expected);
  });

  it('reads a path a step answered from the current directory', async () => {
    expect(await setup({}, { login: { keyFile: 'token' } }).render('{{ file(steps.login.keyFile) }}')).toBe(
      'token-from-cwd',
    );
  });

  it('names the path it tried when a file cannot be read', async () => {
    const template = '{{ file(vars.gone) }}';
    expect((await failure(setup().render(template))).message).toBe(
      `webAPIProviderConfig.headers.X: ${template}: file("/cwd/gone") cannot be read: no such file`,
    );
    const fromConfig = '{{ file("gone") }}';
    expect((await failure(setup().render(fromConfig))).message).toBe(
      `webAPIProviderConfig.headers.X: ${fromConfig}: file("/cfg/gone") cannot be read: no such file`,
    );
  });

  it("shows the URL's host read from a file, but not from a file a secret chose: which host tells the secret", async () => {
    expect(await setup().shownUrl('https://{{ file("/hosts/a") }}/token')).toBe('https://idp-a.example.test/token');
    for (const S of ['Alpha-S3cr3t-1', 'zulu-S3cr3t-22']) {
      const shown = await setup({ S }).shownUrl('https://{{ file(env.S > "m" ? "/hosts/a" : "/hosts/b") }}/token');
      expect(shown).not.toMatch(/idp-[ab]/);
    }
  });

  it('does not name a path a secret chose', async () => {
    for (const S of ['Alpha-S3cr3t-1', 'zulu-S3cr3t-22']) {
      const error = await failure(setup({ S }).render('{{ file(env.S > "m" ? "gone-a" : "gone-b") }}'));
      expect(error.message).not.toMatch(/gone-[ab]/);
      expect(error.message).toBe(DECIDED_FAILURE);
    }
  });
});
