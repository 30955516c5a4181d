// `npm run bench`: start-up and fetch costs of the single binary, as ratios measured in one run.
// Plain Node, no test framework, no asserts: the numbers are printed, and judged by people.
//
//   floor       node -e 0 of the same Node the binary is made of
//   hit         the binary serving a cached credential
//   fetch       the binary fetching from a local HTTPS token API (no cache), config in YAML and in JSON
//   curl|jq     a shell exec plugin doing the same request with curl and jq
//   node https  the least a Node plugin can do for that request (bench/min-fetch.mjs)
//   50 cold     50 concurrent invocations on an empty cache: wall time, upstream requests, failures
//   fleet       200 clusters (200 distinct spec.cluster.server, one config, --cache) started together on
//               an empty cache: upstream requests, wall, summed CPU, peak private memory
//   storm       a token API that refuses the client (401): 500 calls over 60 s from 20 concurrent
//               callers (BENCH_STORM_SECONDS scales the 60 s) → upstream requests
//   peak RSS    of a fetch and of a hit (GNU time's %M)
//   validate    a 256 kB and a 1 MiB config of each shape the schema allows (bench/config-checks.mjs)
//   redaction   a 1 MiB answer against 1k, 10k and 100k secrets sharing a prefix (bench/redact.mjs, in process)
//   merge       kubeconfig --merge into 1,000 clusters with CA data (bench/kubeconfig-merge.mjs, in process)
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configCheckRows } from './config-checks.mjs';
import { redactionRows } from './redact.mjs';
import { kubeconfigMergeRows } from './kubeconfig-merge.mjs';

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
  '/CN=bench-ca',
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

const api = spawn(node, [join(root, 'bench', 'token-api.mjs'), join(dir, 'server.crt'), join(dir, 'server.key')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((resolve) => api.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
const url = `https://localhost:${port}`;
const count = () =>
  Number(spawnSync('curl', ['-sS', '--cacert', join(dir, 'ca.crt'), `${url}/count`], { encoding: 'utf8' }).stdout);

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
      steps: [
        {
          name: 'login',
          method: 'POST',
          url: `${url}/token`,
          form: {
            client_secret: '{{ env.CLIENT_SECRET }}',
            assertion: `{{ jwt({ iss: "bench", aud: "${url}" }, file("${signingKey}")) }}`,
          },
        },
      ],
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
  'node https roots': [
    node,
    join(root, 'bench', 'min-fetch.mjs'),
    `${url}/token`,
    join(dir, 'ca.crt'),
    '--system-roots',
  ],
  // The stages of a miss, by difference (the table's last rows): the binary's own start-up, and a
  // fetch that also stores (a cache directory emptied before each run, outside the time).
  version: [binary, '--version'],
  'fetch stored': [binary, '--config', configJson, '--cache', '--cache-dir', join(dir, 'cache-miss')],
};
/** Runs before a command, outside its time. */
const before = { 'fetch stored': () => rmSync(join(dir, 'cache-miss'), { recursive: true, force: true }) };
/** Commands that print no credential. */
const NO_TOKEN = new Set(['floor', 'version']);
// BENCH_BASELINE=<another build of the binary> (e.g. main before a change) runs its hit and fetch in
// the same alternating rounds, so a before/after comparison shares one machine state.
const baseline = process.env.BENCH_BASELINE;
if (baseline) {
  if (!existsSync(baseline)) throw new Error(`BENCH_BASELINE ${baseline} does not exist`);
  commands['hit (baseline)'] = [baseline, '--config', config, '--cache', '--cache-dir', join(dir, 'cache-baseline')];
  commands['fetch (baseline)'] = [baseline, '--config', config];
}

function once([command, ...args], name) {
  before[name]?.();
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 || (!NO_TOKEN.has(name) && !result.stdout.includes('"token":"bench-token-'))) {
    throw new Error(`${command} failed (${result.status}): ${result.stderr}`);
  }
  return ms;
}

// Warm up the page cache and fill the token cache, then alternate the commands run by run so
// that a noisy neighbour slows them all alike.
for (const [name, command] of Object.entries(commands)) for (let i = 0; i < 3; i++) once(command, name);
const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
for (let run = 0; run < RUNS; run++)
  for (const [name, command] of Object.entries(commands)) samples[name].push(once(command, name));
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
    Array.from(
      { length: n },
      () =>
        new Promise((resolve) => {
          const child = spawn(binary, ['--config', config, '--cache', '--cache-dir', burstDir], {
            env,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.on('close', (code) => resolve({ code, out }));
        }),
    ),
  );
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const tokens = new Set(results.map((r) => /"token":"([^"]+)"/.exec(r.out)?.[1]));
  return {
    wall,
    requests: count() - before,
    failures: results.filter((r) => r.code !== 0).length,
    tokens: tokens.size,
  };
}
const bursts = [];
for (let i = 0; i < 5; i++) bursts.push(await coldBurst(50));

/** CPU time of the children this process has waited for (utime + stime of /proc/self/stat's cutime, cstime), ms. */
function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of proc(5), counted from the state (field 3) here; clock ticks of 10 ms.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
/** Private_Dirty of a live process (kB): its own memory, without the binary's shared pages that RSS counts. */
function privateDirtyKb(pid) {
  try {
    return Number(/^Private_Dirty:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN; // Gone already.
  }
}

// A fleet: Argo CD runs the plugin once per cluster, each with its cluster in KUBERNETES_EXEC_INFO.
// The config never reads `cluster`, so all 200 share one credential: one request, cold, together.
async function fleet(n) {
  const fleetDir = join(dir, `fleet-${Math.random().toString(36).slice(2)}`);
  const before = count();
  const cpuBefore = childrenCpuMs();
  const started = process.hrtime.bigint();
  const live = new Map();
  let peakOne = 0;
  let peakSum = 0;
  // Sampled every 10 ms while any runs: the largest any one process reached, and all of them at once.
  const sampler = setInterval(() => {
    let sum = 0;
    for (const pid of live.keys()) {
      const kb = privateDirtyKb(pid);
      if (!Number.isFinite(kb)) continue;
      sum += kb;
      peakOne = Math.max(peakOne, kb);
    }
    peakSum = Math.max(peakSum, sum);
  }, 10);
  const results = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise((resolve) => {
          const execInfo = JSON.stringify({
            apiVersion: 'client.authentication.k8s.io/v1',
            kind: 'ExecCredential',
            spec: { interactive: false, cluster: { server: `https://cluster-${i}.example:6443` } },
          });
          const child = spawn(binary, ['--config', configJson, '--cache', '--cache-dir', fleetDir], {
            env: { ...env, KUBERNETES_EXEC_INFO: execInfo },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          live.set(child.pid, true);
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.on('close', (code) => {
            live.delete(child.pid);
            resolve({ code, out });
          });
        }),
    ),
  );
  clearInterval(sampler);
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const tokens = new Set(results.map((r) => /"token":"([^"]+)"/.exec(r.out)?.[1]));
  return {
    wall,
    cpu: childrenCpuMs() - cpuBefore,
    requests: count() - before,
    failures: results.filter((r) => r.code !== 0).length,
    tokens: tokens.size,
    peakOne: peakOne / 1024,
    peakSum: peakSum / 1024,
  };
}
const fleetRun = await fleet(200);

// A storm: the client secret is wrong (401), and 20 callers (kubectl retrying, Argo CD reconciling)
// make 500 calls over 60 s between them. Failures are remembered for cache.failureTTL (10 s).
async function storm(calls, callers, seconds) {
  const stormDir = join(dir, `storm-${Math.random().toString(36).slice(2)}`);
  const before = count();
  const started = Date.now();
  const perCaller = Math.ceil(calls / callers);
  const spacing = (seconds * 1000) / perCaller;
  const codes = [];
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      // Each caller starts at its own offset within a spacing, so the calls spread over the period.
      await new Promise((resolve) => setTimeout(resolve, (spacing * c) / callers));
      for (let k = 0; k < perCaller && c * perCaller + k < calls; k++) {
        const due = started + (spacing * c) / callers + k * spacing;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
        codes.push(
          await new Promise((resolve) => {
            const child = spawn(binary, ['--config', configJson, '--cache', '--cache-dir', stormDir], {
              env: { ...env, CLIENT_SECRET: 'a-wrong-secret' },
              stdio: 'ignore',
            });
            child.on('close', resolve);
          }),
        );
      }
    }),
  );
  return {
    calls: codes.length,
    requests: count() - before,
    seconds: (Date.now() - started) / 1000,
    exit3: codes.filter((code) => code === 3).length,
  };
}
const STORM_SECONDS = Number(process.env.BENCH_STORM_SECONDS ?? 60);
const stormRun = await storm(500, 20, STORM_SECONDS);

// A binary written moments ago (by npm run build:binary) sits in the page cache in large folios,
// and mapping it counts up to ~18 MB more resident memory than the same file read back from disk:
// that is page cache, not the plugin's memory. Drop the caches first where we may (root).
const droppedCaches =
  spawnSync('sh', ['-c', 'sync && echo 1 > /proc/sys/vm/drop_caches'], { stdio: 'ignore' }).status === 0;
for (const name of ['hit', 'fetch', 'floor', 'node https']) for (let i = 0; i < 3; i++) once(commands[name], name);

function peakRss(command) {
  const result = spawnSync('/usr/bin/time', ['-f', '%M', ...command], { env, encoding: 'utf8' });
  const kb = Number(result.stderr.trim().split('\n').pop());
  return Number.isFinite(kb) ? kb / 1024 : NaN;
}
// The median of several runs, each command's pages in the page cache by then (the runs above).
const RSS_RUNS = 5;
const peakOf = (command) => median(Array.from({ length: RSS_RUNS }, () => peakRss(command)));
const rss = existsSync('/usr/bin/time')
  ? {
      fetch: peakOf(commands.fetch),
      hit: peakOf(commands.hit),
      floor: peakOf(commands.floor),
      nodeFetch: peakOf(commands['node https']),
    }
  : { fetch: NaN, hit: NaN, floor: NaN, nodeFetch: NaN };

const checks = configCheckRows([binary], dir, env);

api.kill();
rmSync(dir, { recursive: true, force: true });
const redaction = await redactionRows();
const merging = await kubeconfigMergeRows();

const f = (ms) => `${ms.toFixed(1)} ms`;
/** The median over the rounds of (the sum of `plus`'s times − the sum of `minus`'s) in each round. */
const stage = (plus, minus) =>
  median(
    samples.floor.map(
      (_, run) =>
        plus.reduce((sum, name) => sum + samples[name][run], 0) -
        minus.reduce((sum, name) => sum + samples[name][run], 0),
    ),
  );
const lines = [
  `webapi-credential bench — ${new Date().toISOString()} — ${cpus().length} × ${cpus()[0]?.model.trim()} — ${process.version} — ${RUNS} alternating runs, medians`,
  '',
  '| measure | median | ratio | target |',
  '| --- | --- | --- | --- |',
  `| floor: \`node -e 0\` | ${f(med.floor)} | 1.00 × floor | |`,
  `| cached hit (binary) | ${f(med.hit)} | ${(med.hit / med.floor).toFixed(2)} × floor | ≤ 1.10 × floor |`,
  `| cached hit of a config with steps and jwt() (binary) | ${f(med['hit steps+jwt'])} | ${(med['hit steps+jwt'] / med.hit).toFixed(2)} × plain hit | ≤ 1.05 × plain hit |`,
  `| fetch from local HTTPS API (binary) | ${f(med.fetch)} | ${(med.fetch / med['curl|jq']).toFixed(2)} × curl\\|jq | ≤ 2.0 × curl\\|jq |`,
  `| fetch, the config as JSON (binary) | ${f(med['fetch json'])} | ${(med['fetch json'] / med['curl|jq']).toFixed(2)} × curl\\|jq | ≤ 2.0 × curl\\|jq |`,
  `| \`curl \\| jq\` shell plugin, same request | ${f(med['curl|jq'])} | 1.00 × curl\\|jq | |`,
  `| least Node can do: node:https, same POST, nothing else (bench/min-fetch.mjs) | ${f(med['node https'])} | ${(med['node https'] / med['curl|jq']).toFixed(2)} × curl\\|jq; fetch = ${(med.fetch / med['node https']).toFixed(2)} ×, fetch json = ${(med['fetch json'] / med['node https']).toFixed(2)} × this | fetch ≤ 1.10 × this |`,
  `| fleet: 200 clusters (distinct servers, one config, --cache), cold, started together | wall ${f(fleetRun.wall)}, CPU ${f(fleetRun.cpu)} summed | upstream requests ${fleetRun.requests}; failures ${fleetRun.failures}; distinct tokens ${fleetRun.tokens}; peak private memory (Private_Dirty) ${fleetRun.peakOne.toFixed(1)} MB per process, ${fleetRun.peakSum.toFixed(0)} MB all at once | 1 request, 0 failures |`,
  `| storm: 401 token API, ${stormRun.calls} calls over ${STORM_SECONDS} s from 20 concurrent callers | ${stormRun.seconds.toFixed(1)} s | upstream requests ${stormRun.requests}; exit 3: ${stormRun.exit3} | one per cache.failureTTL (10 s) |`,
  `| the same with the CA added to the system roots, as the SPEC asks of every fetch (min-fetch.mjs --system-roots) | ${f(med['node https roots'])} | ${(med['node https roots'] / med['node https']).toFixed(2)} × node https; fetch = ${(med.fetch / med['node https roots']).toFixed(2)} ×, fetch json = ${(med['fetch json'] / med['node https roots']).toFixed(2)} × this | |`,
  `| 50 concurrent cold calls (5 bursts) | wall ${bursts.map((b) => f(b.wall)).join(', ')} | upstream requests ${bursts.map((b) => b.requests).join(', ')}; failures ${bursts.map((b) => b.failures).join(', ')}; distinct tokens ${bursts.map((b) => b.tokens).join(', ')} | 1 request, 0 failures |`,
  ...(baseline
    ? [
        `| cached hit, baseline (${baseline}) | ${f(med['hit (baseline)'])} | ${(med['hit (baseline)'] / med.floor).toFixed(2)} × floor; this build = ${(med.hit / med['hit (baseline)']).toFixed(2)} × baseline | |`,
        `| fetch, baseline | ${f(med['fetch (baseline)'])} | ${(med['fetch (baseline)'] / med['curl|jq']).toFixed(2)} × curl\\|jq; this build = ${(med.fetch / med['fetch (baseline)']).toFixed(2)} × baseline | |`,
      ]
    : []),
  // Each stage as the median of its round-by-round difference of two commands run side by side (so a
  // neighbour's slow moment cancels out): each stage against a plugin that skipped it.
  `| stages of a miss: Node's start (\`node -e 0\`) | ${f(med.floor)} | | |`,
  `| … the binary's own start (\`--version\` − \`node -e 0\`) | ${f(stage(['version'], ['floor']))} | | |`,
  `| … node:https, TLS context, handshake and the POST (min-fetch − \`node -e 0\`) | ${f(stage(['node https'], ['floor']))} | | |`,
  `| … the system roots beside the CA (min-fetch --system-roots − min-fetch) | ${f(stage(['node https roots'], ['node https']))} | | |`,
  `| … the plugin: its program, checks, templates, JSONPath, output (fetch json − min-fetch --system-roots − the binary's start) | ${f(stage(['fetch json', 'floor'], ['node https roots', 'version']))} | | |`,
  `| … a YAML config instead of JSON (fetch − fetch json) | ${f(stage(['fetch'], ['fetch json']))} | | |`,
  `| … storing it: cache key, lock, entry and ref written (fetch stored − fetch json) | ${f(stage(['fetch stored'], ['fetch json']))} | | |`,
  ...checks.map(
    (row) =>
      `| validate, a 1 MiB config of ${row.shape} (${row.cpu ? 'CPU time' : 'wall time'}) | ${f(row.ms1M)} | ${(row.ms1M / row.ms256k).toFixed(2)} × the 256 kB one (${f(row.ms256k)}) | < 1 s; near-linear: ≤ 4 × |`,
  ),
  ...redaction,
  ...merging,
  `| peak RSS (GNU time %M, median of ${RSS_RUNS}, pages in the page cache${droppedCaches ? ' read back after a drop' : ' (not dropped first: not root; a fresh build counts up to 18 MB more)'}) | fetch ${rss.fetch.toFixed(1)} MB, hit ${rss.hit.toFixed(1)} MB, \`node -e 0\` ${rss.floor.toFixed(1)} MB, min-fetch.mjs ${rss.nodeFetch.toFixed(1)} MB | fetch ${(rss.fetch / rss.nodeFetch).toFixed(2)} × min-fetch, hit ${(rss.hit / rss.floor).toFixed(2)} × \`node -e 0\` | ≤ 60 MB |`,
];
process.stdout.write(lines.join('\n') + '\n');
