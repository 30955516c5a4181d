// The credential a call stores under the key its steps taught it (call.ts storeUnderLearnedKey)
// follows the rule of every store: the cache never goes backwards. In process, on the real file
// system: the through() face, a fetch of our own, and an entry another process stored meanwhile.
import fs, { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { through, type CacheDeps } from '../../src/cache/index.js';
import { entryKey, inputsKey } from '../../src/cache/key.js';
import { dependencyDigest } from '../../src/cache/ref.js';
import { readEntry, writeEntry } from '../../src/cache/store.js';
import { ensureSecret } from '../../src/cache/hmac-key.js';
import type { CacheCall } from '../../src/cache/inputs.js';

const UID = process.getuid?.();

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'webapi-credential-learned-'));
  const dir = join(root, 'cache');
  fs.mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o700);
  const answerFile = join(root, 'named-by-an-answer');
  writeFileSync(answerFile, 'v1');
  let n = 0;
  const deps: CacheDeps = {
    fs,
    trace: () => {},
    unique: () => `${process.pid}-${++n}`,
    ...(UID !== undefined ? { uid: UID } : {}),
    randomBytes: () => new Uint8Array(randomBytes(32)),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pid: process.pid,
    alive: () => true,
    host: () => 'this-host',
  };
  const readFile = (path: string) => fs.readFileSync(path, 'utf8');
  const call: CacheCall = {
    dir,
    version: 'test',
    sourceKind: 'file',
    configText: 'steps: [x]',
    vars: {},
    cluster: undefined,
    cacheFlag: true,
    base: '[null,"/"]',
    env: {},
    readFile,
    readsRelative: () => false,
    document: { steps: ['x'] },
    dependencies: { env: [], files: [] },
    // The step's answer named a file the templates then read: a key this call learns only now.
    readSoFar: () => ({ env: [], files: [answerFile] }),
    envNamedBySecret: false,
    insecure: false,
    deadline: Date.now() + 10_000,
    timeoutMs: 10_000,
    failureTtlMs: 10_000,
    redact: (text) => text,
  };
  const secret = ensureSecret(fs, dir, UID, deps.randomBytes, 'setup');
  const inputs = inputsKey(secret, {
    version: call.version,
    document: call.document,
    vars: call.vars,
    cluster: call.cluster,
  });
  const learnedKey = entryKey(secret, inputs, dependencyDigest(call.env, [], [answerFile], readFile));
  return { dir, deps, call, learnedKey };
}

const at = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

describe('the entry under the key a call learned from its steps', () => {
  it('is not replaced by an older credential when another process stored a newer one there meanwhile', async () => {
    const { dir, deps, call, learnedKey } = setup();
    const newer = { token: 'newer-from-another-process', expirationTimestamp: at(Date.now() + 3_600_000) };
    const older = { token: 'older-from-this-call', expirationTimestamp: at(Date.now() + 600_000) };
    // This call's fetch ends after another process, which knew the learned key, stored a newer credential under it.
    const fetch = async () => {
      writeEntry(
        fs,
        dir,
        learnedKey,
        newer,
        'other-process',
        Date.now(),
        Date.parse(newer.expirationTimestamp) + 60_000,
      );
      return { status: older, expiresAt: Date.parse(older.expirationTimestamp) + 60_000 };
    };
    expect(await through(call, fetch, deps)).toEqual(older);
    expect(readEntry(fs, dir, learnedKey, Date.now(), UID)).toEqual({ hit: true, status: newer });
  });

  it('is written when it holds nothing newer (the first repeat is a hit)', async () => {
    const { dir, deps, call, learnedKey } = setup();
    const status = { token: 'from-this-call', expirationTimestamp: at(Date.now() + 600_000) };
    expect(
      await through(call, async () => ({ status, expiresAt: Date.parse(status.expirationTimestamp) + 60_000 }), deps),
    ).toEqual(status);
    expect(readEntry(fs, dir, learnedKey, Date.now(), UID)).toEqual({ hit: true, status });
  });
});
