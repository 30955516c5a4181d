// The refusal when nobody can answer a login's prompt names a `login` command a person can paste
// at a terminal: this call's config (a file by its absolute path, an inline one as a placeholder),
// its --set values and its cache directory, so that the login fills the entry this call reads.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'vitest';
import { shellWord } from '../../src/use-case/shell-word.js';
import { expectFailure } from '../helpers/integration.js';
import { runInProcess } from '../helpers/in-process.js';

const SECRET = 'client-secret-refusal-Q7w2';
const NEEDED =
  'a login is needed and nobody can answer its prompt here (client-go says the call is not interactive); log in once at a terminal: kubectl get ns (with interactiveMode: IfAvailable and --cache in the exec entry), or ';
const NOT_INTERACTIVE = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: false },
});

// No request is made: nothing listens on port 1.
const document = {
  webAPIProviderConfig: {
    method: 'POST',
    url: 'https://localhost:1/token',
    form: {
      client_id: '{{ vars.clientId ?? "kubectl" }}',
      client_secret: '{{ env.CLIENT_SECRET }}',
      scope: '{{ vars.scope ?? "openid" }}',
    },
    login: { deviceAuthorization: { url: 'https://localhost:1/device', form: { scope: 'openid' } } },
  },
};
const inline = JSON.stringify(document);
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential refusal '));
const file = join(dir, "it's config.json");
writeFileSync(file, inline);

const refused = (args: string[], env: Record<string, string> = {}) =>
  runInProcess(args, { env: { CLIENT_SECRET: SECRET, KUBERNETES_EXEC_INFO: NOT_INTERACTIVE, ...env } });

describe('the refusal when nobody can answer names a login command to paste', () => {
  it('a config file given relative: its absolute path, the --set values and a cache directory that is not the default', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'refusal-cache-'));
    const result = await refused([
      '--config',
      relative(process.cwd(), file),
      '--set',
      'clientId=kube ctl',
      '--set',
      'scope=openid',
      '--cache',
      '--cache-dir',
      cacheDir,
    ]);
    expectFailure(
      result,
      2,
      `${NEEDED}webapi-credential login --config '${file.replaceAll("'", "'\\''")}' --set 'clientId=kube ctl' --set scope=openid --cache --cache-dir ${cacheDir}`,
      [SECRET],
    );
  });

  it('the default cache directory is left out', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'refusal-xdg-'));
    const result = await refused(['--config', file, '--cache', '--cache-dir', join(xdg, 'webapi-credential')], {
      XDG_CACHE_HOME: xdg,
    });
    expectFailure(result, 2, `${NEEDED}webapi-credential login --config ${shellWord(file)} --cache`, [SECRET]);
  });

  it('WEBAPI_CREDENTIAL_CONFIG: the file, as --config with its absolute path', async () => {
    const result = await refused(['--cache'], { WEBAPI_CREDENTIAL_CONFIG: relative(process.cwd(), file) });
    expectFailure(result, 2, `${NEEDED}webapi-credential login --config ${shellWord(resolve(file))} --cache`, [SECRET]);
  });

  it.each([
    ['--config-inline', ['--config-inline', inline], {}, "<this command's --config-inline>"],
    [
      'WEBAPI_CREDENTIAL_CONFIG_INLINE',
      [],
      { WEBAPI_CREDENTIAL_CONFIG_INLINE: inline },
      '<the config in WEBAPI_CREDENTIAL_CONFIG_INLINE>',
    ],
  ])('an inline config (%s): named, not pasted', async (_name, args, env, named) => {
    const result = await refused([...args, '--set', 'scope=openid'], env);
    expectFailure(result, 2, `${NEEDED}webapi-credential login --config-inline ${named} --set scope=openid --cache`, [
      SECRET,
    ]);
  });

  it("the kubeconfig cluster entry's config (--config-from-cluster)", async () => {
    const info = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: 'https://cluster.example', config: document } },
    });
    const result = await refused(['--config-from-cluster'], { KUBERNETES_EXEC_INFO: info });
    expectFailure(
      result,
      2,
      `${NEEDED}webapi-credential login --config-inline <the kubeconfig cluster entry's webAPIProviderConfig> --cache`,
      [SECRET],
    );
  });

  it('a --set value holding a newline or a bidi override stays on one line, escaped as bash reads it back', async () => {
    const result = await refused(['--config', file, '--set', 'scope=openid\nprofile\u202e']);
    expectFailure(
      result,
      2,
      `${NEEDED}webapi-credential login --config ${shellWord(file)} --set $'scope=openid\\x0aprofile\\u202e' --cache`,
      [SECRET],
    );
  });
});
