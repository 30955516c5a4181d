// `npm run bench`: start-up and fetch costs of the single binary, as ratios measured in one run.
// Plain Node, no test framework, no asserts: the numbers are printed, and judged by people.
//
//   floor       node -e 0 of the same Node the binary is made of
//   hit         the binary serving a cached credential
//   fetch       the binary fetching from a local HTTPS token API (no cache), config in YAML and in JSON
//   curl|jq     a shell exec plugin doing the same request with curl and jq
//   node https  the least a Node plugin can do for that request (bench/min-fetch.mjs)
//   50 cold     50 concurrent invocations on an empty cache: wall time, upstream requests, failures
//   peak RSS    of a fetch and of a hit (GNU time's %M)
//   redaction   a 1 MiB answer against 1k, 10k and 100k secrets sharing a prefix (bench/redact.mjs, in process)
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { redactionRows } from './redact.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const binary = join(root, 'dist', 'webapi-credential');
const node = realpathSync(join(root, 'node_modules', '.bin', 'node'));
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-bench-'));

if (!existsSync(binary)) throw new Error('no dist/webapi-credential: run npm run build:binary first');
for (const tool of ['openssl', 'curl', 'jq']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) throw new Error(`the bench needs ${tool}`);
}

function openssl(...args) {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}
openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=bench-ca');
writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'server.ext');

const api = spawn(node, [join(root, 'bench', 'token-api.mjs'), join(dir, 'server.crt'), join(dir, 'server.key')], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((resolve) => api.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
const url = `https://localhost:${port}`;
const count = () => Number(spawnSync('curl', ['-sS', '--cacert', join(dir, 'ca.crt'), `${url}/count`], { encoding: 'utf8' }).stdout);

// The same request both ways: a form POST with the client secret from the environment.
const config = join(dir, 'config.yaml');
writeFileSync(
  config,
  `webAPIProviderConfig:
  method: POST
  url: ${url}/token
  form:
    grant_type: client_credentials
    client_secret: "{{ env.CLIENT_SECRET }}"
  tokenPath: $.access_token
  expiresInPath: $.expires_in
  tls:
    caFile: ${join(dir, 'ca.crt')}
`,
);
// The same config as JSON, as Argo CD's --config-inline usually carries it: no YAML parser.
const configJson = join(dir, 'config.json');
writeFileSync(
  configJson,
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${url}/token`,
      form: { grant_type: 'client_credentials', client_secret: '{{ env.CLIENT_SECRET }}' },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caFile: join(dir, 'ca.crt') },
    },
  }),
);
// A config with a step and a signed client assertion: its cache hit must cost what a plain one does.
const signingKey = join(dir, 'client.key');
openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'client.key');
const configSteps = join(dir, 'config-steps.json');
writeFileSync(
  configSteps,
  JSON.stringify({
    webAPIProviderConfig: {
      steps: [{ name: 'login', method: 'POST', url: `${url}/token`, form: { client_secret: '{{ env.CLIENT_SECRET }}', assertion: `{{ jwt({ iss: "bench", aud: "${url}" }, file("${signingKey}")) }}` } }],
      method: 'POST',
      url: `${url}/token`,
      headers: { Authorization: 'Bearer {{ steps.login.access_token }}' },
      form: { grant_type: 'client_credentials', client_secret: '{{ env.CLIENT_SECRET }}' },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caFile: join(dir, 'ca.crt') },
    },
  }),
);
const plugin = join(dir, 'curl-jq-plugin.sh');
writeFileSync(
  plugin,
  `#!/bin/sh
set -eu
token=$(curl -sSf --cacert '${join(dir, 'ca.crt')}' -X POST --data-urlencode grant_type=client_credentials --data-urlencode "client_secret=$CLIENT_SECRET" '${url}/token' | jq -r .access_token)
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}\\n' "$token"
`,
  { mode: 0o755 },
);

const env = { PATH: process.env.PATH, HOME: dir, CLIENT_SECRET: 'bench-secret-value' };
const cacheDir = join(dir, 'cache');
const commands = {
  floor: [node, '-e', '0'],
  hit: [binary, '--config', config, '--cache', '--cache-dir', cacheDir],
  'hit steps+jwt': [binary, '--config', configSteps, '--cache', '--cache-dir', cacheDir],
  fetch: [binary, '--config', config],
  'fetch json': [binary, '--config', configJson],
  'curl|jq': [plugin],
  'node https': [node, join(root, 'bench', 'min-fetch.mjs'), `${url}/token`, join(dir, 'ca.crt')],
};
// BENCH_BASELINE=<another build of the binary> (e.g. main before a change) runs its hit and fetch in
// the same alternating rounds, so a before/after comparison shares one machine state.
const baseline = process.env.BENCH_BASELINE;
if (baseline) {
  if (!existsSync(baseline)) throw new Error(`BENCH_BASELINE ${baseline} does not exist`);
  commands['hit (baseline)'] = [baseline, '--config', config, '--cache', '--cache-dir', join(dir, 'cache-baseline')];
  commands['fetch (baseline)'] = [baseline, '--config', config];
}

function once([command, ...args], name) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 || (name !== 'floor' && !result.stdout.includes('"token":"bench-token-'))) {
    throw new Error(`${command} failed (${result.status}): ${result.stderr}`);
  }
  return ms;
}

// Warm up the page cache and fill the token cache, then alternate the commands run by run so
// that a noisy neighbour slows them all alike.
for (const [name, command] of Object.entries(commands)) for (let i = 0; i < 3; i++) once(command, name);
const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
for (let run = 0; run < RUNS; run++) for (const [name, command] of Object.entries(commands)) samples[name].push(once(command, name));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const med = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));

async function coldBurst(n) {
  const burstDir = join(dir, `burst-${Math.random().toString(36).slice(2)}`);
  const before = count();
  const started = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from({ length: n }, () =>
      new Promise((resolve) => {
        const child = spawn(binary, ['--config', config, '--cache', '--cache-dir', burstDir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ code, out }));
      }),
    ),
  );
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const tokens = new Set(results.map((r) => /"token":"([^"]+)"/.exec(r.out)?.[1]));
  return { wall, requests: count() - before, failures: results.filter((r) => r.code !== 0).length, tokens: tokens.size };
}
const bursts = [];
for (let i = 0; i < 5; i++) bursts.push(await coldBurst(50));

// A binary written moments ago (by npm run build:binary) sits in the page cache in large folios,
// and mapping it counts up to ~18 MB more resident memory than the same file read back from disk:
// that is page cache, not the plugin's memory. Drop the caches first where we may (root).
const droppedCaches = spawnSync('sh', ['-c', 'sync && echo 1 > /proc/sys/vm/drop_caches'], { stdio: 'ignore' }).status === 0;
for (let i = 0; i < 3; i++) once(commands.hit, 'hit');

function peakRss(command) {
  const result = spawnSync('/usr/bin/time', ['-f', '%M', ...command], { env, encoding: 'utf8' });
  const kb = Number(result.stderr.trim().split('\n').pop());
  return Number.isFinite(kb) ? kb / 1024 : NaN;
}
const rss = existsSync('/usr/bin/time')
  ? {
      fetch: Math.max(...[1, 2, 3].map(() => peakRss(commands.fetch))),
      hit: Math.max(...[1, 2, 3].map(() => peakRss(commands.hit))),
      floor: Math.max(...[1, 2, 3].map(() => peakRss(commands.floor))),
    }
  : { fetch: NaN, hit: NaN, floor: NaN };

api.kill();
rmSync(dir, { recursive: true, force: true });
const redaction = await redactionRows();

const f = (ms) => `${ms.toFixed(1)} ms`;
const lines = [
  `webapi-credential bench — ${new Date().toISOString()} — ${cpus().length} × ${cpus()[0]?.model.trim()} — ${process.version} — ${RUNS} alternating runs, medians`,
  '',
  '| measure | median | ratio | target |',
  '| --- | --- | --- | --- |',
  `| floor: \`node -e 0\` | ${f(med.floor)} | 1.00 × floor | |`,
  `| cached hit (binary) | ${f(med.hit)} | ${(med.hit / med.floor).toFixed(2)} × floor | ≤ 1.25 × floor |`,
  `| cached hit of a config with steps and jwt() (binary) | ${f(med['hit steps+jwt'])} | ${(med['hit steps+jwt'] / med.hit).toFixed(2)} × plain hit | ≤ 1.05 × plain hit |`,
  `| fetch from local HTTPS API (binary) | ${f(med.fetch)} | ${(med.fetch / med['curl|jq']).toFixed(2)} × curl\\|jq | ≤ 2.0 × curl\\|jq |`,
  `| fetch, the config as JSON (binary) | ${f(med['fetch json'])} | ${(med['fetch json'] / med['curl|jq']).toFixed(2)} × curl\\|jq | ≤ 2.0 × curl\\|jq |`,
  `| \`curl \\| jq\` shell plugin, same request | ${f(med['curl|jq'])} | 1.00 × curl\\|jq | |`,
  `| least Node can do: node:https, same POST, nothing else (bench/min-fetch.mjs) | ${f(med['node https'])} | ${(med['node https'] / med['curl|jq']).toFixed(2)} × curl\\|jq; fetch = ${(med.fetch / med['node https']).toFixed(2)} × this | |`,
  `| 50 concurrent cold calls (5 bursts) | wall ${bursts.map((b) => f(b.wall)).join(', ')} | upstream requests ${bursts.map((b) => b.requests).join(', ')}; failures ${bursts.map((b) => b.failures).join(', ')}; distinct tokens ${bursts.map((b) => b.tokens).join(', ')} | 1 request, 0 failures |`,
  ...(baseline
    ? [
        `| cached hit, baseline (${baseline}) | ${f(med['hit (baseline)'])} | ${(med['hit (baseline)'] / med.floor).toFixed(2)} × floor; this build = ${(med.hit / med['hit (baseline)']).toFixed(2)} × baseline | |`,
        `| fetch, baseline | ${f(med['fetch (baseline)'])} | ${(med['fetch (baseline)'] / med['curl|jq']).toFixed(2)} × curl\\|jq; this build = ${(med.fetch / med['fetch (baseline)']).toFixed(2)} × baseline | |`,
      ]
    : []),
  ...redaction,
  `| peak RSS (GNU time %M, max of 3${droppedCaches ? ', page cache dropped first' : ', page cache NOT dropped: not root'}) | fetch ${rss.fetch.toFixed(1)} MB, hit ${rss.hit.toFixed(1)} MB, \`node -e 0\` ${rss.floor.toFixed(1)} MB | | ≤ 60 MB |`,
];
process.stdout.write(lines.join('\n') + '\n');
