// The README's first screen, as a newcomer types it: each line of its block run by a shell in an
// empty HOME, against a real OAuth 2.0 / OIDC server (panva's oidc-provider, its token endpoint at a
// path of its own, known to the newcomer only through its issuer) and an API server stand-in that
// accepts exactly the tokens that server issued, with the real kubectl 1.33. Only the example hosts
// are swapped for the local ones (and ca.crt is the stand-in's CA, trusted system-wide as a private CA is).
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT, leaks } from '../helpers/cli.js';
import { startApiServer, type ApiServer } from '../helpers/apiserver.js';
import { TRUST_TEST_CA } from '../helpers/examples.js';
import { installedDir } from '../helpers/installed.js';
import { KUBECTL_1_33, requireKubectl } from '../helpers/kubectl.js';
import { makePki } from '../helpers/pki.js';
import { describeWith } from '../helpers/tools.js';

const SECRET = 'newcomer-client-secret-+/%8Tz';
const PREFIX = 'webapi-credential: ';
const pki = makePki();
/** Every access token the OAuth server issued: the API server accepts these and nothing else. */
const issued: string[] = [];
let oauth: Server;
let issuer = '';
let apiserver: ApiServer;

beforeAll(async () => {
  oauth = createServer({ key: pki.server.key, cert: pki.server.cert });
  await new Promise<void>((resolve) => oauth.listen(0, '127.0.0.1', resolve));
  issuer = `https://localhost:${(oauth.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'kubectl',
        client_secret: SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ] as never,
    routes: { token: '/connect/v2/issue-token' },
    features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
  });
  const callback = provider.callback();
  oauth.on('request', (req, res) => {
    // The token answers, read as they leave: what the API server stand-in will accept.
    if (req.url === '/connect/v2/issue-token') {
      const end = res.end.bind(res);
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        if (chunk !== undefined && typeof chunk !== 'function') {
          const token = (JSON.parse(String(chunk)) as { access_token?: string }).access_token;
          if (token) issued.push(token);
        }
        return end(chunk as never, ...(rest as []));
      }) as typeof res.end;
    }
    void callback(req, res);
  });
  apiserver = await startApiServer({ accepts: (token) => (issued.includes(token) ? 'kubectl-client' : undefined) });
}, 30_000);

afterAll(async () => {
  await Promise.all([new Promise<void>((resolve) => oauth.close(() => resolve())), apiserver.close()]);
});

describeWith(KUBECTL_1_33)(
  "the README's first screen, line by line: init oidc with an issuer only, to kubectl get ns",
  () => {
    it('leads from init oidc to kubectl get ns without a detour', async () => {
      const readme = readFileSync(`${ROOT}README.md`, 'utf8');
      const block = /From nothing to `kubectl get ns`[^\n]*\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(block, 'the README has its first-screen block').toBeDefined();
      const lines = block!.split('\n').filter((line) => line.trim() !== '');
      expect(lines[1]).toMatch(
        /^webapi-credential init oidc --set issuer=https:\/\/login\.example\.com --set clientId=\S+ > provider\.yaml\b/,
      );
      expect(lines.at(-1)).toMatch(/kubectl get ns$/);
      const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-readme-'));
      const tools = installedDir();
      symlinkSync(requireKubectl(KUBECTL_1_33), join(tools, 'kubectl'));
      writeFileSync(join(dir, 'ca.crt'), readFileSync(apiserver.caFile));
      const env = { PATH: `${tools}:/usr/bin:/bin`, HOME: join(dir, 'home'), ...TRUST_TEST_CA };
      for (const line of lines) {
        const command = line
          .replace(/\s+# .*$/, '')
          .replaceAll('https://login.example.com', issuer)
          .replaceAll('https://k8s.example.com', apiserver.url)
          .replaceAll('CLIENT_SECRET=…', `CLIENT_SECRET='${SECRET}'`);
        const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn('/bin/sh', ['-c', command], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
          child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
          const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
          child.on('close', (code) => {
            clearTimeout(timer);
            resolve({ code, stdout, stderr });
          });
        });
        expect({
          line,
          code: result.code,
          stderr: result.stderr.split('\n').filter((l) => !l.startsWith(PREFIX)),
        }).toEqual({ line, code: 0, stderr: [''] });
        expect(leaks(result, [SECRET])).toEqual([]);
        if (line === lines.at(-1))
          expect(result.stdout.split('\n').map((l) => l.split(/\s+/)[0])).toEqual([
            'NAME',
            'default',
            'kube-system',
            '',
          ]);
      }
      // The config init wrote names the endpoint discovery found, and where it came from.
      const provider = readFileSync(join(dir, 'provider.yaml'), 'utf8');
      expect(provider).toContain(
        `# tokenUrl: the token_endpoint of the issuer ${issuer}, from ${issuer}/.well-known/openid-configuration\n`,
      );
      expect(provider).toContain(`  url: "${issuer}/connect/v2/issue-token"\n`);
      // kubectl's call went through a token this server issued, and the API server saw it.
      expect(issued.length).toBeGreaterThan(0);
      expect(
        apiserver.requests.some(
          (request) =>
            request.auth === 'bearer' &&
            request.user?.username === 'kubectl-client' &&
            request.path === '/api/v1/namespaces',
        ),
      ).toBe(true);
    });
  },
);
