// OpenSSL reads a config file in Node's start-up, before the plugin's first line, and loads every
// shared library it names: OPENSSL_CONF (with OPENSSL_MODULES and OPENSSL_ENGINES to find them) is
// code of the environment's choosing. The single executable names its own empty config instead
// (scripts/sea.mjs), so none of them changes a run: not its exit code, not a byte of its output, and
// no library of theirs is loaded. The npm package runs on the user's Node, which honours them as it
// honours NODE_OPTIONS (README, "Security model"): this file runs against the binary only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, SECRET_ENV, basic, execCredential, provider, tokenApis, writeTemp } from '../helpers/integration.js';

const binary = process.env['WEBAPI_CREDENTIAL_BIN'];
const pki = makePki();
const startApi = tokenApis();
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-openssl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A library whose constructor leaves a file behind: proof that it was loaded, whatever OpenSSL then
// makes of it (it is neither a provider nor an engine).
const gcc = spawnSync('gcc', ['--version']).status === 0;
if (binary && !gcc)
  process.stderr.write(
    'skipped: the OPENSSL_CONF marker-library cases need gcc (apt-get install gcc); the broken-library case runs\n',
  );
const marker = join(dir, 'loaded');
function markerLibrary(): string {
  const source = join(dir, 'marker.c');
  writeFileSync(
    source,
    `#include <stdio.h>
__attribute__((constructor)) static void mark(void) {
  FILE *f = fopen(${JSON.stringify(marker)}, "w");
  if (f) { fputs("loaded\\n", f); fclose(f); }
}
`,
  );
  const library = join(dir, 'marker.so');
  const built = spawnSync('gcc', ['-shared', '-fPIC', '-o', library, source], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`gcc failed: ${built.stderr}`);
  return library;
}

/** An OpenSSL config that activates `module` as a provider, in the section Node reads and in OpenSSL's own. */
const providerConfig = (module: string) => `nodejs_conf = conf
openssl_conf = conf
[conf]
providers = providers
[providers]
planted = planted
[planted]
module = ${module}
activate = 1
`;
/** One that loads `library` as an engine. */
const engineConfig = (library: string) => `nodejs_conf = conf
openssl_conf = conf
[conf]
engines = engines
[engines]
planted = planted
[planted]
dynamic_path = ${library}
`;

/** `--version`, and a fetch from a local HTTPS token API with a CA file (OpenSSL's TLS at work). */
async function runs(env: Record<string, string>) {
  const api = await startApi((_request, response) => json(response, 200, { access_token: SECRET.token }));
  const config = writeTemp(
    'config.json',
    provider(
      basic(`${api.url}/token`, { tls: { caFile: pki.ca.certFile }, form: { client_secret: '{{ env.FORM_SECRET }}' } }),
    ),
  );
  const version = await runCli(['--version'], { env });
  const fetched = await runCli(['--config', config], { env: { ...SECRET_ENV, ...env } });
  expect(api.requests).toHaveLength(1);
  return { version, fetched };
}

describe.skipIf(!binary)('the single executable and OPENSSL_CONF', () => {
  it('runs the same with a config that names a library that is no library (it aborted with exit 134)', async () => {
    const broken = join(dir, 'broken.so');
    writeFileSync(broken, 'not an ELF file\n');
    const config = join(dir, 'broken.cnf');
    writeFileSync(config, providerConfig(broken));
    const clean = await runs({});
    expect(clean.fetched.stdout).toBe(execCredential({ token: SECRET.token }));
    expect(clean.version).toMatchObject({ code: 0, stderr: '' });
    expect(await runs({ OPENSSL_CONF: config })).toEqual(clean);
  });

  it.skipIf(!gcc)(
    'loads no library a config names: a provider by path, by name in OPENSSL_MODULES, an engine',
    async () => {
      const library = markerLibrary();
      const configs = {
        provider: [providerConfig(library), {}],
        'provider found through OPENSSL_MODULES': [providerConfig('marker.so'), { OPENSSL_MODULES: dir }],
        engine: [engineConfig(library), { OPENSSL_ENGINES: dir }],
      } as const;
      const clean = await runs({});
      for (const [name, [text, extra]] of Object.entries(configs)) {
        const config = join(dir, `${name.replace(/\W+/g, '-')}.cnf`);
        writeFileSync(config, text);
        rmSync(marker, { force: true });
        expect({ name, ...(await runs({ OPENSSL_CONF: config, ...extra })) }).toEqual({ name, ...clean });
        expect({ name, loaded: existsSync(marker) }).toEqual({ name, loaded: false });
      }
    },
  );
});
