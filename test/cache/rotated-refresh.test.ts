// A refresh token rotated in an answer whose credential has no known expiry (SPEC Cache: "a
// refresh_token in any 2xx answer is stored at once"): the credential is not stored, the new refresh
// token is, so the next refresh sends it and never the used one again (a single-use grant replayed
// revokes the grant family under reuse detection). Against a real token API that counts the POSTs.
import fs, { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cached, type CacheDeps, type Fetch } from '../../src/cache/cache.js';
import { fileStorage } from '../../src/cache/file-storage.js';
import { readEntry, writeEntry } from '../../src/cache/store.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const KEY = 'f'.repeat(64);
const NOW = Date.parse('2026-01-01T00:00:00Z');
const UID = process.getuid?.();
let api: TokenApi;
let issued = 1;
beforeAll(async () => {
  // Every refresh answers an opaque access token with no expires_in, and the next refresh token.
  api = await startTokenApi(
    (_request, response) =>
      json(response, 200, {
        access_token: `opaque-${issued}`,
        token_type: 'Bearer',
        refresh_token: `refresh-R${++issued}`,
      }),
    { insecure: true },
  );
});
afterAll(() => api?.close());

function deps(): CacheDeps {
  let n = 0;
  return {
    fs,
    trace: () => {},
    unique: () => `u${++n}`,
    now: () => NOW,
    sleep: async () => {},
    pid: process.pid,
    alive: () => true,
    uid: UID,
    randomBytes: () => new Uint8Array(32),
  };
}

/** A refresh as tokenPath $.access_token reads it: the answer's access_token, no expiry, its refresh_token. */
const refreshAtApi: Fetch = async (refresh) => {
  const answer = await fetch(`${api.url}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh?.token ?? '' }),
  });
  const body = (await answer.json()) as { access_token: string; refresh_token?: string };
  return {
    status: { token: body.access_token },
    expiresAt: undefined,
    ...(body.refresh_token !== undefined ? { refreshToken: body.refresh_token } : {}),
  };
};

it('the next refresh posts the rotated refresh token R2, never the used R1 again', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-rotated-refresh-')), 'cache');
  fs.mkdirSync(dir, { mode: 0o700 });
  // A login's entry: its credential expired, its refresh token R1.
  writeEntry(
    fs,
    dir,
    KEY,
    { token: 'expired', expirationTimestamp: '2025-12-31T23:00:00Z' },
    'seed',
    NOW - 7_200_000,
    undefined,
    { token: 'refresh-R1', at: NOW - 7_200_000 },
  );
  const timing = { deadline: NOW + 30_000, timeoutMs: 30_000 };
  expect(await cached(fileStorage(dir, deps()), KEY, timing, refreshAtApi, deps())).toEqual({ token: 'opaque-1' });
  // Not stored as a credential (no expiry), but the rotated refresh token is kept.
  expect(readEntry(fs, dir, KEY, NOW, UID)).toMatchObject({ hit: false, refresh: { token: 'refresh-R2' } });
  expect(await cached(fileStorage(dir, deps()), KEY, timing, refreshAtApi, deps())).toEqual({ token: 'opaque-2' });
  const posted = api.requests.map((request) => new URLSearchParams(request.body).get('refresh_token'));
  expect(posted).toEqual(['refresh-R1', 'refresh-R2']);
});

it('with no entry yet (a login whose credential has no expiry), the entry holds the refresh token alone: a miss that carries it', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-rotated-refresh-')), 'cache');
  fs.mkdirSync(dir, { mode: 0o700 });
  const before = api.requests.length;
  const timing = { deadline: NOW + 30_000, timeoutMs: 30_000 };
  const first = await cached(fileStorage(dir, deps()), KEY, timing, refreshAtApi, deps());
  const lookup = readEntry(fs, dir, KEY, NOW, UID);
  expect(lookup).toEqual({
    hit: false,
    reason: 'entry holds no usable credential',
    refresh: { token: `refresh-R${issued}`, at: NOW },
  });
  expect(fs.statSync(join(dir, `${KEY}.json`)).mode & 0o777).toBe(0o600);
  expect(fs.readFileSync(join(dir, `${KEY}.json`), 'utf8')).not.toContain(first.token!);
  await cached(fileStorage(dir, deps()), KEY, timing, refreshAtApi, deps());
  const posted = api.requests.slice(before).map((request) => new URLSearchParams(request.body).get('refresh_token'));
  expect(posted).toEqual(['', lookup.refresh!.token]);
});
