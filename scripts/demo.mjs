// `npm run demo`: the main job on an embedded default. Starts a local HTTPS OAuth2 token API with
// a CA made on the spot, runs the built CLI against it with a client secret in the environment,
// and prints the ExecCredential it returns. Narration goes to stderr, the credential to stdout.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const say = (text) => process.stderr.write(`${text}\n`);
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-demo-'));
const bin = fileURLToPath(new URL('../bin/webapi-credential.js', import.meta.url));

function openssl(...args) {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

try {
  say('1. Making a throwaway CA and a localhost certificate with openssl');
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '1',
    '-subj',
    '/CN=demo-ca',
  );
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '1',
    '-extfile',
    'server.ext',
  );

  const clientId = 'demo-client';
  // A + and a : in the secret: what a hand-made base64(id + ':' + secret) gets wrong (RFC 6749 §2.3.1).
  const clientSecret = 's3cr3t+demo:value';
  const server = createServer(
    { cert: readFileSync(join(dir, 'server.crt')), key: readFileSync(join(dir, 'server.key')) },
    (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const formEncoded = (value) => new URLSearchParams({ v: value }).toString().slice(2);
        const basic = `Basic ${Buffer.from(`${formEncoded(clientId)}:${formEncoded(clientSecret)}`).toString('base64')}`;
        if (
          req.method !== 'POST' ||
          req.url !== '/oauth/token' ||
          req.headers.authorization !== basic ||
          form.get('grant_type') !== 'client_credentials'
        ) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'invalid_client' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            access_token: `demo-token-for-${form.get('scope')}`,
            token_type: 'Bearer',
            expires_in: 3600,
          }),
        );
      });
    },
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://localhost:${server.address().port}`;
  say(`2. A token API (OAuth2 client_credentials) listens on ${url}/oauth/token`);

  const config = `webAPIProviderConfig:
  method: POST
  url: ${url}/oauth/token
  headers:
    Authorization: "{{ basicAuth(env.CLIENT_ID, env.CLIENT_SECRET) }}"
  form:
    grant_type: client_credentials
    scope: "{{ vars.scope ?? 'kubernetes' }}"
  tokenPath: $.access_token
  expiresInPath: $.expires_in
  tls:
    caFile: ${join(dir, 'ca.crt')}
`;
  writeFileSync(join(dir, 'config.yaml'), config);
  say(`3. The config (${join(dir, 'config.yaml')}):\n\n${config.replace(/^/gm, '   ')}`);
  const env = { ...process.env, CLIENT_ID: clientId, CLIENT_SECRET: clientSecret };
  // The child runs while this process serves the token API, so it must not block the event loop.
  const run = (args) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.on('close', (code) => resolve({ code, out, err }));
    });

  say('4. What it would send (`webapi-credential render`), the secret redacted:\n');
  const rendered = await run(['render', '--config', join(dir, 'config.yaml')]);
  say(rendered.out.replace(/^/gm, '   '));
  say('5. The ExecCredential (`webapi-credential --config config.yaml`), on stdout:\n');
  const result = await run(['--config', join(dir, 'config.yaml')]);
  process.stderr.write(result.err);
  process.stdout.write(result.out);
  server.close();
  process.exitCode = result.code ?? 1;
  if (result.code === 0)
    say('\nThat JSON is what kubectl reads from an exec plugin. See README.md for kubeconfig and Argo CD.');
} catch (error) {
  say(
    `demo failed: ${error.message}${spawnSync('openssl', ['version']).error ? ' (openssl is needed to make the demo certificates)' : ''}`,
  );
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
