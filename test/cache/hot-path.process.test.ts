// A cached credential must not pay for the machinery of a fetch: this runs the bin script (whose
// build splits the HTTP client, yaml, the expression parser, json-p3 and commander into chunks loaded on demand)
// under a module hook that lists every file it loads, and checks which libraries those files hold.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN_SCRIPT, PINNED_NODE, ROOT, baseEnv } from '../helpers/cli.js';
import { cachedConfig, getToken, sandbox, tokenApis } from './support.js';

// A string each library's code contains, and ours does not.
const MARKERS: Record<string, string> = {
  // src/request/http.ts (node:https underneath)
  'http client': 'RESPONSE_TOO_LARGE',
  yaml: 'YAMLParseError',
  // jsep, and our template checker and evaluator with it
  'expression parser': 'addBinaryOp',
  // jose, for jwt()
  jose: 'JWSSignatureVerificationFailed',
  'json-p3': 'JSONPathSyntaxError',
  commander: 'CommanderError',
  // the example configs `init` prints (scripts/examples.mjs)
  examples: 'orgscopedtokens',
  // src/use-case/doctor/, src/cli/doctor-report.ts and its cluster client (request/cluster.ts): loaded by `doctor` alone.
  doctor: 'webapi-credential.doctor/v1',
  'cluster client': 'CLUSTER_STATUS',
};

const api = tokenApis();

async function loadedLibraries(
  args: string[],
  env: Record<string, string | undefined>,
  dir: string,
): Promise<{ code: number | null; stdout: string; libraries: string[] }> {
  const list = join(dir, 'loaded.txt');
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + '\\n'); return next(url, context); } });
`,
  );
  writeFileSync(list, '');
  // Not spawnSync: the token API lives in this process and must keep answering.
  const result = await new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(PINNED_NODE, ['--import', hook, BIN_SCRIPT, ...args], {
      env: baseEnv(env),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout }));
  });
  const files = readFileSync(list, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:') && !url.endsWith('hook.mjs'))
    .map((url) => readFileSync(new URL(url), 'utf8'));
  const libraries = Object.entries(MARKERS)
    .filter(([, marker]) => files.some((text) => text.includes(marker)))
    .map(([name]) => name);
  return { code: result.status, stdout: result.stdout, libraries };
}

describe('the cached-credential path', () => {
  it('loads none of the HTTP client, yaml, the expression parser, json-p3 or commander on a hit, and all of what a miss needs', async () => {
    const server = await api();
    const box = sandbox();
    const yaml = join(box.root, 'config.yaml');
    // A YAML file, as most kubeconfig users write it, so that a miss needs the YAML parser.
    writeFileSync(yaml, JSON.stringify(JSON.parse(cachedConfig(server)), null, 2).replace(/^\{|\}$/g, ''));
    const env = box.env({ API_KEY: 'api-key-1' });

    const miss = await loadedLibraries(['--config', yaml, '--cache'], env, box.root);
    expect(miss.code).toBe(0);
    // The plain get-token form skips commander on a miss too (src/cli/direct.ts), and simple paths
    // like $.access_token skip json-p3 (src/credential/simple-path.ts).
    expect(miss.libraries).toEqual(['http client', 'yaml', 'expression parser']);

    const hit = await loadedLibraries(['--config', yaml, '--cache'], env, box.root);
    expect(hit.code).toBe(0);
    expect(hit.stdout).toBe(miss.stdout);
    expect(hit.libraries).toEqual([]);
    expect(server.requests).toHaveLength(1);

    // Any other command goes through commander.
    const validate = await loadedLibraries(['validate', '--config', yaml], env, box.root);
    expect(validate.code).toBe(0);
    expect(validate.libraries).toEqual(['yaml', 'expression parser', 'commander']);

    // Only init loads the example configs.
    const init = await loadedLibraries(['init', 'upbound'], env, box.root);
    expect(init.code).toBe(0);
    expect(init.libraries).toContain('examples');
    // doctor's code comes with doctor alone; its cluster client only when a server is known.
    const doctor = await loadedLibraries(['doctor', '--config', yaml], env, box.root);
    expect(doctor.code).toBe(0);
    expect(doctor.libraries).toEqual(['http client', 'yaml', 'expression parser', 'commander', 'doctor']);

    // A path simple-path.ts does not cover brings json-p3 in.
    const filtered = join(box.root, 'filtered.json');
    writeFileSync(
      filtered,
      cachedConfig(server, { tokenPath: '$[?@.token_type]' }).replace('"$.access_token"', '"$[?@.token_type]"'),
    );
    const complex = await loadedLibraries(['validate', '--config', filtered], env, box.root);
    expect(complex.code).toBe(0);
    expect(complex.libraries).toContain('json-p3');
  });

  it('answers --version without loading commander or the rest of the CLI', async () => {
    const box = sandbox();
    const version = await loadedLibraries(['--version'], box.env({}), box.root);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^webapi-credential \d+\.\d+\.\d+\S* \(node v\d+\.\d+\.\d+, \S+\)\n$/);
    expect(version.libraries).toEqual([]);
    // Anything more than the flag alone is commander's to read, which says the same.
    const more = await loadedLibraries(['--version', '--verbose'], box.env({}), box.root);
    expect({ code: more.code, stdout: more.stdout }).toEqual({ code: 0, stdout: version.stdout });
    expect(more.libraries).toContain('commander');
  });

  it('in the single executable, holds none of them in the asset a hit compiles, and all of them in the one a miss does', () => {
    // The files the executable's assets are made of (scripts/sea.mjs, next to it in dist/; npm test builds it).
    const holds = (asset: string) => {
      const text = readFileSync(join(ROOT, 'dist', 'sea', asset), 'utf8');
      return Object.entries(MARKERS)
        .filter(([, marker]) => text.includes(marker))
        .map(([name]) => name);
    };
    expect(holds('fast.cjs')).toEqual([]);
    // jose is an asset of its own (as is re2js).
    expect(holds('full.cjs')).toEqual(Object.keys(MARKERS).filter((name) => name !== 'jose'));
  });

  it('loads neither jose nor the expression parser on a hit of a config with steps and jwt()', async () => {
    const server = await api();
    const box = sandbox();
    const { generateKeyPairSync } = await import('node:crypto');
    const key = join(box.root, 'client.key');
    writeFileSync(
      key,
      generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
        format: 'pem',
        type: 'pkcs8',
      }) as string,
    );
    const base = JSON.parse(cachedConfig(server)) as { webAPIProviderConfig: Record<string, unknown> };
    const config = join(box.root, 'steps.json');
    writeFileSync(
      config,
      JSON.stringify({
        webAPIProviderConfig: {
          ...base.webAPIProviderConfig,
          steps: [
            {
              name: 'login',
              method: 'POST',
              url: `${server.url}/token`,
              form: { assertion: `{{ jwt({ iss: "c" }, file(${JSON.stringify(key)})) }}` },
            },
          ],
          headers: { Authorization: 'Bearer {{ steps.login.access_token }}' },
        },
      }),
    );
    const env = box.env({ API_KEY: 'api-key-1' });
    const miss = await loadedLibraries(['--config', config, '--cache'], env, box.root);
    expect(miss.code).toBe(0);
    expect(miss.libraries).toEqual(['http client', 'expression parser', 'jose']);
    const hit = await loadedLibraries(['--config', config, '--cache'], env, box.root);
    expect(hit.stdout).toBe(miss.stdout);
    expect(hit.libraries).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('takes the full path, libraries and all, when the cache is off', async () => {
    const server = await api();
    const box = sandbox();
    const first = await getToken(box, cachedConfig(server), ['--cache']);
    expect(first.code).toBe(0);
    const off = await loadedLibraries(
      ['--config-inline', cachedConfig(server), '--no-cache'],
      box.env({ API_KEY: 'api-key-1' }),
      box.root,
    );
    expect(off.code).toBe(0);
    expect(off.libraries).toContain('http client');
    expect(server.requests).toHaveLength(2);
  });
});
