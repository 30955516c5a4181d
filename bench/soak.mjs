// A soak of the cache (SPEC Cache: single flight, never backwards, failures remembered): CALLERS
// concurrent loops run the plugin with --cache against a local HTTPS token API that injects faults
// (a 503, a hang, a reset connection, a slow answer) into a share of its requests, while a share of
// the calls is killed (SIGKILL) mid-flight. Prints calls, exit codes, upstream requests against one
// per credential lifetime, and call latency (p50/p95/max). Plain Node, no asserts: judged by people.
// Also (issue 38): calls that failed while a credential they could have been served existed (must be
// 0), upstream requests against the ideal (one per refresh plus one per fault), and p50/p99 of hits,
// misses and waiters during a refresh, told apart from outside: a call that started while a request
// was at the token API is a waiter; one during whose life a request arrived, none being in flight
// when it started, a miss (it, or a caller beside it, made the request); every other call a hit.
//
//   node bench/soak.mjs                    (after npm run build)
//   SOAK_SECONDS=120 SOAK_CALLERS=16 SOAK_FAULTS=0.2 SOAK_KILLS=0.05 SOAK_LIFETIME=20 SOAK_COLD=1 node bench/soak.mjs
//   SOAK_FAULTS=0 SOAK_KILLS=0 SOAK_SLOW=3-8 SOAK_TIMEOUT=5s SOAK_LIFETIME=30 SOAK_MARGIN=10 node bench/soak.mjs   (a 3-8 s API)
//   SOAK_FAULTS=0 SOAK_KILLS=0 SOAK_ONE_503=30 SOAK_MARGIN=10 node bench/soak.mjs   (one 503 Retry-After: 30 at the first refresh)
//   WEBAPI_CREDENTIAL_BIN=dist/webapi-credential node bench/soak.mjs    (the single binary)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CALLERS = Number(process.env.SOAK_CALLERS ?? 16);
const FAULTS = Number(process.env.SOAK_FAULTS ?? 0.2);
const KILLS = Number(process.env.SOAK_KILLS ?? 0.05);
/** The token's lifetime (expires_in); reported 5 s early (expiryMargin), so refreshed every LIFETIME - 5 s. */
const LIFETIME = Number(process.env.SOAK_LIFETIME ?? 20);
const MARGIN = Number(process.env.SOAK_MARGIN ?? 5);
const TIMEOUT = process.env.SOAK_TIMEOUT ?? '5s';
/** SOAK_SLOW=3-8: every answer takes between 3 and 8 s. */
const SLOW = process.env.SOAK_SLOW ? process.env.SOAK_SLOW.split('-').map(Number) : undefined;
/** SOAK_ONE_503=30: the first refresh (the second request) is answered 503 with Retry-After: 30, once. */
const ONE_503 = process.env.SOAK_ONE_503 ? Number(process.env.SOAK_ONE_503) : undefined;
/** SOAK_COLD=1 lets the very first request fail too; by default it answers, so the faults hit refreshes. */
const COLD = process.env.SOAK_COLD === '1';
const command = process.env.WEBAPI_CREDENTIAL_BIN
  ? [process.env.WEBAPI_CREDENTIAL_BIN]
  : [realpathSync(join(root, 'node_modules', '.bin', 'node')), join(root, 'bin', 'webapi-credential.js')];

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-soak-'));
const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
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
  '/CN=soak-ca',
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

// The token API, in this process: the callers are child processes, spawned without blocking it.
const upstream = {
  requests: 0,
  issued: 0,
  faults: { '503': 0, hang: 0, reset: 0, slow: 0 },
  abandoned: 0,
  inFlight: 0,
  arrivals: [],
  tokens: [],
};
const hung = new Set();
const server = createServer(
  { cert: readFileSync(join(dir, 'server.crt')), key: readFileSync(join(dir, 'server.key')) },
  (req, res) => {
    req.resume();
    req.on('end', () => {
      upstream.requests++;
      upstream.inFlight++;
      upstream.arrivals.push(performance.now());
      let answered = false;
      res.on('finish', () => (answered = true));
      // A caller that gave up (its --timeout) before the answer: the request was for nothing.
      res.on('close', () => {
        upstream.inFlight--;
        if (!answered && !res.soakFault) upstream.abandoned++;
      });
      const answer = () => {
        if (res.destroyed) return;
        upstream.issued++;
        upstream.tokens.push({ token: `soak-token-${upstream.issued}`, at: performance.now() });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: `soak-token-${upstream.issued}`, expires_in: LIFETIME }));
      };
      if (ONE_503 !== undefined && upstream.requests === 2) {
        upstream.faults['503']++;
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(ONE_503) });
        return res.end('{"error":"temporarily_unavailable"}');
      }
      if (SLOW) {
        const [low, high] = SLOW;
        return setTimeout(answer, (low + Math.random() * (high - low)) * 1000);
      }
      if ((!COLD && upstream.issued === 0) || Math.random() >= FAULTS) return answer();
      const fault = ['503', 'hang', 'reset', 'slow'][Math.floor(Math.random() * 4)];
      upstream.faults[fault]++;
      res.soakFault = true;
      if (fault === '503') {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"error":"temporarily_unavailable"}');
      } else if (fault === 'hang') hung.add(res);
      else if (fault === 'reset') req.socket.destroy();
      else setTimeout(answer, 2_000);
    });
  },
);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const config = JSON.stringify({
  webAPIProviderConfig: {
    method: 'POST',
    url: `https://localhost:${server.address().port}/token`,
    tokenPath: '$.access_token',
    expiresInPath: '$.expires_in',
    expiryMargin: `${MARGIN}s`,
    timeout: SLOW ? `${SLOW[1] + 2}s` : '3s',
    retry: { limit: 0 },
    tls: { caFile: join(dir, 'ca.crt') },
  },
});
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') };

const calls = [];
function call() {
  return new Promise((resolve) => {
    const started = performance.now();
    const duringRefresh = upstream.inFlight > 0;
    const child = spawn(command[0], [...command.slice(1), '--config-inline', config, '--cache', '--timeout', TIMEOUT], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const killed = Math.random() < KILLS;
    if (killed) setTimeout(() => child.kill('SIGKILL'), Math.random() * 500);
    // 'close', not 'exit': the exit can come before the last of stdout and stderr is read.
    child.on('close', (code, signal) => {
      const ms = performance.now() - started;
      calls.push({
        code: signal ? signal : code,
        started,
        ended: performance.now(),
        ms,
        killed,
        duringRefresh,
        token: code === 0 ? /soak-token-\d+/.exec(stdout)?.[0] : undefined,
        stderr: stderr.split('\n')[0],
      });
      resolve();
    });
  });
}

const end = performance.now() + SECONDS * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: CALLERS }, async () => {
    while (performance.now() < end) await call();
  }),
);
const wall = (performance.now() - started) / 1000;
for (const res of hung) res.destroy();
server.close();
server.closeAllConnections?.();
rmSync(dir, { recursive: true, force: true });

const codes = {};
for (const c of calls) codes[c.code] = (codes[c.code] ?? 0) + 1;
const finished = calls
  .filter((c) => !c.killed)
  .map((c) => c.ms)
  .sort((a, b) => a - b);
const pct = (p) => finished[Math.min(finished.length - 1, Math.floor((p / 100) * finished.length))] ?? 0;
const lifetimes = wall / (LIFETIME - MARGIN);
const messages = {};
for (const c of calls)
  if (c.code !== 0 && typeof c.code === 'number')
    messages[c.stderr.replace(/\d+/g, 'N')] = (messages[c.stderr.replace(/\d+/g, 'N')] ?? 0) + 1;
// Never backwards (SPEC Cache): a call that printed a token older than one another call had already
// printed before it started went back. Tokens are numbered in the order the API issued them.
const number = (token) => Number(token.slice('soak-token-'.length));
const printed = calls.filter((c) => c.token !== undefined).sort((a, b) => a.ended - b.ended);
// The newest token printed by the calls that ended before each moment: a running maximum over the
// calls in the order they ended, searched by start time.
const newestBefore = [];
for (const c of printed) newestBefore.push(Math.max(newestBefore.at(-1) ?? 0, number(c.token)));
let backwards = 0;
for (const c of printed) {
  let low = 0;
  let high = printed.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (printed[middle].ended < c.started) low = middle + 1;
    else high = middle;
  }
  if (low > 0 && number(c.token) < newestBefore[low - 1]) backwards++;
}
const row = (name, value) => console.log(`${name.padEnd(26)} ${value}`);
row(
  'callers × seconds',
  `${CALLERS} × ${SECONDS} s (wall ${wall.toFixed(1)} s), faults ${FAULTS * 100}% of requests, kills ${KILLS * 100}% of calls`,
);
row('calls', calls.length);
row(
  'exit codes',
  Object.entries(codes)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', '),
);
row(
  'upstream requests',
  `${upstream.requests} (faults ${Object.entries(upstream.faults)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}; tokens issued ${upstream.issued})`,
);
row(
  'went backwards',
  `${backwards} of ${printed.length} credentials printed (older than one printed before the call started)`,
);
row('one per lifetime would be', `${lifetimes.toFixed(1)} (refreshed every ${LIFETIME - MARGIN} s)`);
row(
  'latency (not killed)',
  `p50 ${pct(50).toFixed(0)} ms, p95 ${pct(95).toFixed(0)} ms, max ${(finished.at(-1) ?? 0).toFixed(0)} ms`,
);
// Failed while a credential it could have been served existed: a credential another call printed
// before this one ended (so it was stored), still before its real expiry when this one ended.
const issuedAt = new Map(upstream.tokens.map((t) => [t.token, t.at]));
const failedWhileValid = calls.filter(
  (c) =>
    !c.killed &&
    c.code !== 0 &&
    printed.some((p) => p.ended < c.ended && issuedAt.get(p.token) + LIFETIME * 1000 > c.ended),
).length;
const faults = Object.values(upstream.faults).reduce((a, b) => a + b, 0);
const ideal = Math.ceil(wall / (LIFETIME - MARGIN)) + faults;
const arrivedDuring = (c) => upstream.arrivals.some((t) => t >= c.started && t <= c.ended);
const kinds = { hit: [], miss: [], waiter: [] };
for (const c of calls.filter((c) => !c.killed && c.code === 0))
  kinds[c.duringRefresh ? 'waiter' : arrivedDuring(c) ? 'miss' : 'hit'].push(c.ms);
const percentiles = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return `${sorted.length} calls, p50 ${at(50).toFixed(0)} ms, p99 ${at(99).toFixed(0)} ms`;
};
row(
  'failed while valid',
  `${failedWhileValid} (must be 0: calls that failed while a credential they could have been served existed)`,
);
row(
  'requests vs ideal',
  `${upstream.requests} against ${ideal} (one per ${LIFETIME - MARGIN} s refresh, ${Math.ceil(wall / (LIFETIME - MARGIN))}, plus one per fault, ${faults}); ${upstream.abandoned} abandoned by a caller whose --timeout ended first`,
);
for (const [kind, name] of [
  ['hit', 'hits'],
  ['miss', 'misses'],
  ['waiter', 'waiters during a refresh'],
])
  row(`  ${name}`, percentiles(kinds[kind]));
row(
  'load average',
  (await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' '),
);
for (const [message, n] of Object.entries(messages)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 5))
  row(`  ×${n}`, message);
