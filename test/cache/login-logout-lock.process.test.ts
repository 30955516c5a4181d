// `login` and `logout` take the key's lock (SPEC "Cache", "Interactive login"), the CLI as separate
// processes against a real HTTPS token API that stands in for the issuer: a device grant, refresh
// tokens rotated on every answer, RFC 7009 revocation. A refresh (or a revocation) held open at the
// token API holds the lock; what the other process did meanwhile is told by the order in which the API saw the requests
// and by what the cache holds afterwards, never by the clock.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type ExpectStatic } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { fakeJwt, json, startTokenApi, type TokenApi } from '../helpers/token-api.js';
import { pki, sandbox, spawnCli, type Sandbox, type Spawned } from './support.js';

const PREFIX = 'webapi-credential: ';
const NOT_INTERACTIVE = {
  KUBERNETES_EXEC_INFO: JSON.stringify({
    kind: 'ExecCredential',
    apiVersion: 'client.authentication.k8s.io/v1',
    spec: { interactive: false },
  }),
};
/** The seeding login's id_token lives this long: the test waits it out, so that the next call refreshes. */
const SEED_TTL_S = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Issuer {
  api: TokenApi;
  /** What the issuer saw, in order: `device`, `logged in R`, `refresh R`, `refreshed R`, `revoke R`. */
  log: string[];
  /** Every id_token and refresh token it gave: none may be shown but the credential on stdout. */
  issued: string[];
  /** Whether the person approved: until then, the device code's poll is authorization_pending. */
  approved: boolean;
  /** How long the id_token of a login lives. */
  loginTtlS: number;
  /** The next refresh grant (or revocation) waits at the issuer until `release()`; `arrived` once it is there. */
  holdRefresh: () => { arrived: Promise<void>; release: () => void };
  holdRevoke: () => { arrived: Promise<void>; release: () => void };
  /** Resolves once the issuer saw `n` device requests. */
  devices: (n: number) => Promise<void>;
}

async function startIssuer(): Promise<Issuer> {
  let n = 0;
  type Hold = { arrive: () => void; released: Promise<void> };
  const holds: { refresh?: Hold | undefined; revoke?: Hold | undefined } = {};
  /** The hold set for `kind`, taken (the next request of that kind waits on it). */
  const take = async (kind: 'refresh' | 'revoke') => {
    const held = holds[kind];
    holds[kind] = undefined;
    if (held) {
      held.arrive();
      await held.released;
    }
  };
  const holdOf = (kind: 'refresh' | 'revoke') => () => {
    let arrive!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    holds[kind] = { arrive, released };
    return { arrived, release };
  };
  const deviceWaiters: Array<{ n: number; resolve: () => void }> = [];
  const mint = (ttlS: number) => {
    n++;
    const answer = {
      id_token: fakeJwt(Math.floor(Date.now() / 1000) + ttlS, { n }),
      refresh_token: `refresh-${n}-Hq2Lm9Xr`,
      token_type: 'Bearer',
    };
    issuer.issued.push(answer.id_token, answer.refresh_token);
    return answer;
  };
  const api = await startTokenApi(async (request, response) => {
    const form = new URLSearchParams(request.body);
    if (request.path === '/device') {
      issuer.log.push('device');
      const seen = issuer.log.filter((entry) => entry === 'device').length;
      for (const waiter of deviceWaiters.filter((w) => w.n <= seen)) waiter.resolve();
      json(response, 200, {
        device_code: 'device-code-Zt8Kp3',
        user_code: 'WDJB-MJHT',
        verification_uri: `${api.url}/verify`,
        expires_in: 120,
        interval: 1,
      });
      return;
    }
    if (request.path === '/revoke') {
      issuer.log.push(`revoke ${form.get('token')}`);
      await take('revoke');
      response.writeHead(200);
      response.end();
      return;
    }
    if (form.get('grant_type') === 'refresh_token') {
      issuer.log.push(`refresh ${form.get('refresh_token')}`);
      await take('refresh');
      const answer = mint(600);
      issuer.log.push(`refreshed ${answer.refresh_token}`);
      json(response, 200, answer);
      return;
    }
    if (!issuer.approved) {
      json(response, 400, { error: 'authorization_pending' });
      return;
    }
    const answer = mint(issuer.loginTtlS);
    issuer.log.push(`logged in ${answer.refresh_token}`);
    json(response, 200, answer);
  });
  const issuer: Issuer = {
    api,
    log: [],
    issued: [],
    approved: true,
    loginTtlS: SEED_TTL_S,
    holdRefresh: holdOf('refresh'),
    holdRevoke: holdOf('revoke'),
    devices: (count) =>
      new Promise((resolve) =>
        issuer.log.filter((entry) => entry === 'device').length >= count
          ? resolve()
          : deviceWaiters.push({ n: count, resolve }),
      ),
  };
  return issuer;
}

function configOf(api: TokenApi): string {
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${api.url}/token`,
      form: { client_id: 'kubectl' },
      tls: { caFile: pki.ca.certFile },
      retry: { limit: 0 },
      login: {
        deviceAuthorization: { url: `${api.url}/device`, form: { scope: 'openid offline_access' } },
        revocation: { url: `${api.url}/revoke` },
      },
    },
  });
}

/** A person logged in once (`login`, cached); its credential expired since: the next call refreshes with refresh-1. */
async function loggedIn(expect: ExpectStatic, issuer: Issuer, box: Sandbox): Promise<string[]> {
  const args = ['--config-inline', configOf(issuer.api), '--cache-dir', box.cacheDir];
  const seeded = await runCli(['login', ...args], { env: box.env() });
  expect(seeded.code, seeded.stderr).toBe(0);
  expect(issuer.log).toEqual(['device', 'logged in refresh-1-Hq2Lm9Xr']);
  expect(held(box)).toEqual(['refresh-1-Hq2Lm9Xr']);
  await sleep(SEED_TTL_S * 1000 + 500);
  issuer.log.length = 0;
  return args;
}

/** The refresh tokens the cache's entries hold (read as text: the files are the test's own). */
function held(box: Sandbox): string[] {
  const found: string[] = [];
  for (const name of readdirSync(box.cacheDir).filter((file) => file.endsWith('.json'))) {
    found.push(...(readFileSync(join(box.cacheDir, name), 'utf8').match(/refresh-\d+-Hq2Lm9Xr/g) ?? []));
  }
  return found;
}

/**
 * `run` with an issuer and a cache of its own in which a person logged in once; the issuer is closed
 * after. The tests run at once (each waits out its own seeding login's id_token): none reads another's
 * log or sets another's holds.
 */
async function afterLogin(
  expect: ExpectStatic,
  run: (issuer: Issuer, box: Sandbox, args: string[]) => Promise<void>,
): Promise<void> {
  const issuer = await startIssuer();
  try {
    const box = sandbox();
    await run(issuer, box, await loggedIn(expect, issuer, box));
  } finally {
    await issuer.api.close();
  }
}

/**
 * A call in another process (not interactive) whose refresh the issuer holds: it holds the key's lock
 * while `during` runs, and its refresh is answered at `release()` or once `during` ends, whatever it threw.
 */
async function whileRefreshHeld(
  issuer: Issuer,
  box: Sandbox,
  args: string[],
  during: (refresher: Spawned, release: () => void) => Promise<void>,
): Promise<Spawned> {
  const refresh = issuer.holdRefresh();
  const refresher = spawnCli([...args, '--cache'], box.env(NOT_INTERACTIVE));
  await refresh.arrived;
  try {
    await during(refresher, refresh.release);
  } finally {
    refresh.release();
  }
  return refresher;
}

describe.concurrent('login and logout hold the key lock against a refresh in another process', () => {
  it(
    'logout waits for a refresh in flight, then revokes the token that refresh rotated in and removes the entry: the refresh cannot store it back',
    ({ expect }) =>
      afterLogin(expect, async (issuer, box, args) => {
        await whileRefreshHeld(issuer, box, args, async (refresher, release) => {
          const logout = spawnCli(['logout', ...args, '--verbose'], box.env());
          // It waits on the refresher's lock (said under --verbose); without the lock it would be done already.
          await Promise.race([
            logout.exited,
            logout.waitForStderr(`cache: waiting for process ${refresher.child.pid}, which holds the lock`),
          ]);
          release();
          const [refreshed, out] = await Promise.all([refresher.exited, logout.exited]);
          expect(refreshed.code, refresher.stderr()).toBe(0);
          expect(out.code, logout.stderr()).toBe(0);
          expect(logout.stdout()).toBe(
            `logged out: removed this config's cached credential and refresh token from ${box.cacheDir}; the refresh token was revoked at ${new URL(issuer.api.url).host}\n`,
          );
          const result = { code: out.code, stdout: logout.stdout(), stderr: logout.stderr() };
          expect(leaks(result, issuer.issued)).toEqual([]);
        });
        // The token the refresh rotated in is the one revoked, and the cache holds no refresh token.
        expect(issuer.log).toEqual([
          'refresh refresh-1-Hq2Lm9Xr',
          'refreshed refresh-2-Hq2Lm9Xr',
          'revoke refresh-2-Hq2Lm9Xr',
        ]);
        expect(held(box)).toEqual([]);
      }),
    60_000,
  );

  it(
    "a logout whose --timeout ends before the refresh's deadline: exit 3 naming the holder, nothing revoked, the entry as it was",
    ({ expect }) =>
      afterLogin(expect, async (issuer, box, args) => {
        const refresher = await whileRefreshHeld(issuer, box, args, async (refresher) => {
          const short = await runCli(['logout', ...args, '--timeout', '2s'], { env: box.env() });
          expect(short.code).toBe(3);
          expect(short.stdout).toBe('');
          expect(short.stderr).toBe(
            `${PREFIX}logout waited --timeout 2s for process ${refresher.child.pid}, which was still fetching this config's credential: run logout again\n`,
          );
          expect(leaks(short, issuer.issued)).toEqual([]);
          expect(issuer.log).toEqual(['refresh refresh-1-Hq2Lm9Xr']);
          expect(held(box)).toEqual(['refresh-1-Hq2Lm9Xr']);
        });
        expect((await refresher.exited).code, refresher.stderr()).toBe(0);
        expect(held(box)).toEqual(['refresh-2-Hq2Lm9Xr']);
      }),
    60_000,
  );

  it(
    'login waits for a refresh in flight before it starts its own login',
    ({ expect }) =>
      afterLogin(expect, async (issuer, box, args) => {
        let login!: Spawned;
        const refresher = await whileRefreshHeld(issuer, box, args, async (refresher) => {
          login = spawnCli(['login', ...args, '--verbose'], box.env());
          // Either it waits on the refresher's lock, or (without the lock) it asks for a device code at once.
          await Promise.race([
            issuer.devices(1),
            login.waitForStderr(`cache: waiting for process ${refresher.child.pid}, which holds the lock`),
          ]);
        });
        const [refreshed, done] = await Promise.all([refresher.exited, login.exited]);
        expect(refreshed.code, refresher.stderr()).toBe(0);
        expect(done.code, login.stderr()).toBe(0);
        expect(leaks({ code: done.code, stdout: login.stdout(), stderr: login.stderr() }, issuer.issued)).toEqual([]);
        expect(issuer.log).toEqual([
          'refresh refresh-1-Hq2Lm9Xr',
          'refreshed refresh-2-Hq2Lm9Xr',
          'device',
          'logged in refresh-3-Hq2Lm9Xr',
        ]);
        expect(held(box)).toEqual(['refresh-3-Hq2Lm9Xr']);
      }),
    60_000,
  );

  it(
    "a call and a logout while login waits on the person: neither refreshes with the entry's refresh token, each says a login is in progress",
    ({ expect }) =>
      afterLogin(expect, async (issuer, box, args) => {
        issuer.approved = false;
        const login = spawnCli(['login', ...args], box.env());
        try {
          await login.waitForStderr('to log in, open ');
          const waiting = new RegExp(
            `^${PREFIX}warning: waiting for the login in another terminal \\(pid ${login.child.pid}, since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)$`,
          );
          const inProgress = `${PREFIX}a login is in progress in another terminal (pid ${login.child.pid}): finish it there, then run again`;
          // Both at once: each only waits on the login's lock (neither creates one while it lives).
          const [script, logout] = await Promise.all([
            runCli([...args, '--cache', '--timeout', '3s'], { env: box.env(NOT_INTERACTIVE) }),
            runCli(['logout', ...args, '--timeout', '3s'], { env: box.env() }),
          ]);
          for (const result of [script, logout]) {
            expect(result.code).toBe(2);
            expect(result.stdout).toBe('');
            expect(
              result.stderr
                .split('\n')
                .filter((line) => line !== '')
                .map((line) => line.replace(waiting, 'WAITING')),
            ).toEqual(['WAITING', inProgress]);
            expect(leaks(result, issuer.issued)).toEqual([]);
          }
          // No refresh and no revocation: the entry holds refresh-1 until the login replaces it.
          expect(issuer.log).toEqual(['device']);
          expect(held(box)).toEqual(['refresh-1-Hq2Lm9Xr']);
        } finally {
          issuer.approved = true;
        }
        expect((await login.exited).code, login.stderr()).toBe(0);
        expect(issuer.log).toEqual(['device', 'logged in refresh-2-Hq2Lm9Xr']);
        expect(held(box)).toEqual(['refresh-2-Hq2Lm9Xr']);
      }),
    60_000,
  );

  it('a call while logout revokes is not served the credential being logged out: it waits for the lock, then needs a login', async ({
    expect,
  }) => {
    const issuer = await startIssuer();
    try {
      issuer.loginTtlS = 600;
      const box = sandbox();
      const args = ['--config-inline', configOf(issuer.api), '--cache-dir', box.cacheDir];
      const seeded = await runCli(['login', ...args], { env: box.env() });
      expect(seeded.code, seeded.stderr).toBe(0);
      const revocation = issuer.holdRevoke();
      const logout = spawnCli(['logout', ...args], box.env());
      let call!: Spawned;
      try {
        await revocation.arrived;
        // The credential is live for ten minutes: a call that read the entry now would print it at once.
        call = spawnCli([...args, '--cache', '--verbose'], box.env(NOT_INTERACTIVE));
        await Promise.race([
          call.exited,
          call.waitForStderr(`cache: waiting for process ${logout.child.pid}, which holds the lock`),
        ]);
      } finally {
        revocation.release();
      }
      const [out, done] = await Promise.all([logout.exited, call.exited]);
      expect(out.code, logout.stderr()).toBe(0);
      expect(call.stdout()).toBe('');
      expect(done.code).toBe(2);
      expect(call.stderr()).toMatch(/a login is needed/);
      const result = { code: done.code, stdout: call.stdout(), stderr: call.stderr() };
      expect(leaks(result, issuer.issued)).toEqual([]);
      expect(issuer.log).toEqual(['device', 'logged in refresh-1-Hq2Lm9Xr', 'revoke refresh-1-Hq2Lm9Xr']);
      expect(held(box)).toEqual([]);
    } finally {
      await issuer.api.close();
    }
  }, 60_000);
});
