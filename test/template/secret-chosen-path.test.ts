// A file() path a secret chose is a secret (SPEC "Templates": a value decided by a secret is secret
// even as a file() path). doctor's config line listed the files read, so
// `file(env.S >= "m" ? "a.json" : "b.json")` told which way the secret went in one run, whatever the
// request did; and with --cache the path went into the cache's ref in clear. Now it is listed nowhere
// and the cache is off for that call, as for env[env.X].
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { cachedConfig, sandbox, tokenApis, tree } from '../cache/support.js';

const startApi = tokenApis();
const dir = mkdtempSync(join(tmpdir(), 'secret-chosen-path-'));
const below = join(dir, 'below-the-pivot.json');
const above = join(dir, 'above-the-pivot.json');
writeFileSync(below, 'content-one');
writeFileSync(above, 'content-two');
const SECRETS = ['aaaa-secret-value', 'zzzz-secret-value'];

const fields = { body: `{{ file(env.S >= 'm' ? ${JSON.stringify(above)} : ${JSON.stringify(below)}) }}` };

describe('a file whose path a secret chose', () => {
  it('is not named by doctor, whose config line is the same for either value of the secret', async () => {
    const api = await startApi();
    const box = sandbox();
    const shown: string[] = [];
    for (const S of SECRETS) {
      const result = await runInProcess(['doctor', '--config-inline', cachedConfig(api, fields)], {
        env: box.env({ API_KEY: 'api-key-1', S }),
      });
      const text = `${result.code} ${result.stdout} ${result.stderr}`;
      expect(text).not.toContain('below-the-pivot');
      expect(text).not.toContain('above-the-pivot');
      expect(result.code).toBe(0);
      shown.push(result.stdout.split('\n').find((line) => line.includes('config '))!);
    }
    expect(shown[1]).toBe(shown[0]);
  });

  it('turns the cache off for that call: no ref holds the path', async () => {
    const api = await startApi();
    const box = sandbox();
    const result = await runInProcess(['--cache', '-v', '--config-inline', cachedConfig(api, fields)], {
      env: box.env({ API_KEY: 'api-key-1', S: SECRETS[1] }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('cache: off for this call: a template reads a file whose path a secret chose');
    for (const file of tree(box.cacheDir)) {
      let content = '';
      try {
        content = readFileSync(join(box.cacheDir, file), 'utf8');
      } catch {
        continue; // a directory
      }
      expect(content).not.toContain('above-the-pivot');
    }
  });
});
