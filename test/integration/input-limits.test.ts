// Every input ends in time and with the right exit code. Each case hung, ran for tens of seconds
// past --timeout, used gigabytes or crashed with exit 1 before: a FIFO or /dev/zero as the config,
// a TLS file or a file(); a catastrophic regular expression in a filter; an answer nested 400 000
// levels deep; a config nested past the stack; a date that does not exist.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, SECRET_ENV, basic, expectFailure, provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const tls = { caFile: pki.ca.certFile };
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-limits-'));
const fifo = (name: string) => {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
};
/**
 * Each case asserts its outcome, never its time: a hang is killed by runCli (after a minute: ample room
 * for a busy machine, where reading 400 000 levels took over 20 s) and has no exit code, and a run past
 * --timeout says so in its message.
 */
async function timed(args: string[], env: Record<string, string> = SECRET_ENV) {
  return { result: await runCli(args, { env, timeoutMs: 60_000 }) };
}

describe('files a config names', { timeout: 90_000 }, () => {
  it('refuses /dev/zero as the config at once', async () => {
    const { result } = await timed(['--config', '/dev/zero', '--timeout', '2s']);
    expectFailure(result, 2, 'cannot read config /dev/zero: not a regular file');
  });

  it('refuses a FIFO as the config without waiting for a writer', async () => {
    const path = fifo('config.fifo');
    const { result } = await timed(['--config', path, '--timeout', '2s']);
    expectFailure(result, 2, `cannot read config ${path}: not a regular file`);
  });

  it('refuses a config larger than 1 MiB', async () => {
    const path = join(dir, 'big.yaml');
    writeFileSync(path, `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const { result } = await timed(['--config', path]);
    expectFailure(result, 2, `cannot read config ${path}: larger than 1 MiB`);
  });

  it('refuses a FIFO as tls.caFile', async () => {
    const path = fifo('ca.fifo');
    const { result } = await timed([
      '--config-inline',
      provider(basic('https://127.0.0.1:9/token', { tls: { caFile: path } })),
      '--timeout',
      '2s',
    ]);
    expectFailure(result, 2, `webAPIProviderConfig.tls.caFile: cannot read ${path}: not a regular file`);
  });

  it('refuses a FIFO given to file()', async () => {
    const path = fifo('secret.fifo');
    const config = provider({
      method: 'POST',
      url: 'https://127.0.0.1:9/token',
      tokenPath: '$.t',
      form: { s: `{{ file(${JSON.stringify(path)}) }}` },
    });
    const { result } = await timed(['--config-inline', config, '--timeout', '2s']);
    expectFailure(
      result,
      2,
      `webAPIProviderConfig.form.s: {{ file(${JSON.stringify(path)}) }}: file(${JSON.stringify(path)}) cannot be read: not a regular file`,
    );
  });

  it('refuses a YAML config the parser would take minutes over, at once', async () => {
    // 30 000 keys in one mapping, 700 kB: the YAML parser took 85 s over it, whatever --timeout said.
    const path = join(dir, 'many-keys.yaml');
    writeFileSync(
      path,
      `webAPIProviderConfig:\n  method: POST\n  url: https://127.0.0.1:9/token\n  tokenPath: $.t\n  json:\n${Array.from({ length: 30_000 }, (_, i) => `    k${i}:\n      x: 1\n`).join('')}`,
    );
    const { result } = await timed(['--config', path, '--timeout', '2s']);
    expectFailure(
      result,
      2,
      `config from --config ${path} is too large to read as YAML: more than 10000 YAML tokens (a config has a few hundred); write it as JSON, or keep large values in files`,
    );
  });

  it('refuses a config nested deeper than the stack with exit 2, not a crash', async () => {
    const nested = `${'{"a":'.repeat(100_000)}"leaf"${'}'.repeat(100_000)}`;
    const config = `{"webAPIProviderConfig":{"method":"POST","url":"https://127.0.0.1:9/token","tokenPath":"$.t","json":${nested}}}`;
    const path = join(dir, 'deep.json');
    writeFileSync(path, config);
    const { result } = await timed(['--config', path]);
    expectFailure(result, 2, 'the config is nested too deeply to read');
  });
});

describe('answers that would take for ever', { timeout: 90_000 }, () => {
  it('matches a catastrophic regular expression in linear time, within --timeout', async () => {
    const api = await startApi((_request, response) =>
      json(response, 200, {
        items: [
          { name: `${'a'.repeat(34)}c`, token: 'no' },
          { name: 'aab', token: SECRET.token },
        ],
        expires_in: 600,
      }),
    );
    const config = provider(basic(`${api.url}/token`, { tls, tokenPath: "$.items[?match(@.name, '(a+)+b')].token" }));
    // A backtracking match takes 2^34 steps here (hours): it would end at --timeout with exit 3, not a token.
    const { result } = await timed(['--config-inline', config, '--timeout', '10s']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).status.token).toBe(SECRET.token);
  });

  it('reports an answer nested 400 000 deep as exit 4, not a crash', async () => {
    const deep = `{"a":${'['.repeat(400_000)}${']'.repeat(400_000)}}`;
    const api = await startApi(
      (_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(deep),
    );
    const config = provider(basic(`${api.url}/token`, { tls, tokenPath: '$..access_token' }));
    const { result } = await timed(['--config-inline', config]);
    expectFailure(result, 4, 'the token API answered JSON nested too deeply to search; check the API and the paths');
  });

  it.each([
    ['February 30th', '2026-02-30T10:00:00Z', 'day 30 of month 02'],
    ['hour 25', '2026-03-01T25:00:00Z', 'hour 25'],
    ['month 13', '2026-13-01T10:00:00Z', 'month 13'],
  ])('refuses an expiry on %s instead of rolling it over', async (_name, expiry, what) => {
    const api = await startApi((_request, response) =>
      json(response, 200, { access_token: SECRET.token, expires_at: expiry }),
    );
    const config = provider(basic(`${api.url}/token`, { tls, expiryPath: '$.expires_at' }));
    const { result } = await timed(['--config-inline', config]);
    expectFailure(result, 4, `expiryPath $.expires_at matched a time that does not exist (${what})`);
  });
});
