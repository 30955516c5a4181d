// acquire() on the real file system in a temp directory, with a fake clock and sleep: who gets the
// lock, when a waiter gives up, and how a lock left by a dead process is recovered.
import fs, { mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquire, liveHolder, lockPath, type LockDeps } from '../../src/cache/lock.js';
import { modeOf } from './support.js';

const KEY = 'c'.repeat(64);
const ME = 4242;
const ALIVE = 777;
const DEAD = 888;
const START = Date.parse('2030-01-01T00:00:00Z');
const HOST = 'boot-1/pid:[4026531836]';
let uniques = 0;

interface Clock {
  deps: LockDeps;
  /** The fake time now. */
  time: () => number;
  sleeps: number[];
}

/** A fake clock whose sleep advances it (and runs `onSleep` after each one); pid ALIVE is alive. */
function clock(onSleep: (count: number) => void = () => {}): Clock {
  let time = START;
  const sleeps: number[] = [];
  return {
    time: () => time,
    sleeps,
    deps: {
      fs,
      now: () => time,
      sleep: async (ms) => {
        sleeps.push(ms);
        time += ms;
        onSleep(sleeps.length);
      },
      pid: ME,
      alive: (pid) => pid === ALIVE,
      host: () => HOST,
      unique: () => `u${++uniques}`,
      ...(process.getuid ? { uid: process.getuid() } : {}),
    },
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'webapi-credential-lock-'));
}

/** A lock file holding `content`, last modified at `mtime` (ms). */
function plantLock(dir: string, content: string, mtime = START): string {
  const path = lockPath(dir, KEY);
  writeFileSync(path, content, { mode: 0o600 });
  utimesSync(path, mtime / 1000, mtime / 1000);
  return path;
}

const never = () => false;
const options = (ready: () => boolean = never, patienceMs = 60_000) => ({
  deadline: START + 1_000,
  staleAfterMs: 35_000,
  patienceMs,
  ready,
});
/** What our lock says: pid, host, our deadline, and that it is not a login's. */
const MINE = `${ME} ${HOST} ${START + 1_000} fetch\n`;

describe('acquire', () => {
  it('takes a free lock at once: a 0600 file holding our pid, host, deadline and kind, removed on release', async () => {
    const dir = tempDir();
    const c = clock();
    const outcome = await acquire(dir, KEY, options(), c.deps);
    expect(outcome.kind).toBe('acquired');
    expect(c.sleeps).toEqual([]);
    expect(readFileSync(lockPath(dir, KEY), 'utf8')).toBe(MINE);
    expect(modeOf(lockPath(dir, KEY))).toBe(0o600);
    if (outcome.kind !== 'acquired') return;
    outcome.lock.release();
    expect(readdirSync(dir)).toEqual([]);
    outcome.lock.release(); // twice is harmless
    expect(readdirSync(dir)).toEqual([]);
  });

  it('does not remove a lock that another process recovered and took after ours went stale', async () => {
    const dir = tempDir();
    const outcome = await acquire(dir, KEY, options(), clock().deps);
    if (outcome.kind !== 'acquired') throw new Error(outcome.kind);
    fs.unlinkSync(lockPath(dir, KEY));
    outcome.lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('waits for a live holder and reports ready as soon as the entry is there, leaving the lock alone', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST}\n`);
    let entryWritten = false;
    const c = clock((count) => (entryWritten = count === 3));
    const outcome = await acquire(
      dir,
      KEY,
      options(() => entryWritten),
      c.deps,
    );
    expect(outcome).toEqual({ kind: 'ready' });
    expect(c.sleeps).toEqual([25, 25, 25]);
    expect(readFileSync(path, 'utf8')).toBe(`${ALIVE} ${HOST}\n`);
  });

  it('takes the lock when the live holder releases it without an entry (its fetch failed)', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST}\n`);
    const c = clock((count) => count === 2 && fs.unlinkSync(path));
    const outcome = await acquire(dir, KEY, options(), c.deps);
    expect(outcome.kind).toBe('acquired');
    expect(c.sleeps).toEqual([25, 25]);
    expect(readFileSync(path, 'utf8')).toBe(MINE);
  });

  it('gives up at its deadline while a live holder keeps the lock, without taking it', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST}\n`);
    const c = clock();
    const outcome = await acquire(dir, KEY, options(), c.deps);
    expect(outcome).toEqual({
      kind: 'timeout',
      holder: { pid: ALIVE, since: START, deadline: undefined, login: false },
    });
    expect(c.time()).toBeLessThanOrEqual(START + 1_000);
    expect(c.time()).toBeGreaterThanOrEqual(START + 1_000 - 25);
    expect(c.sleeps.every((ms) => ms === 25)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(`${ALIVE} ${HOST}\n`);
  });

  // A read-only mount (or an immutable file) holding a lock whose holder died: open(O_EXCL) says
  // EEXIST, rename says EROFS. The lock is stale but cannot be broken: judged again and again
  // without a sleep, the waiter spun at full CPU past every deadline. It goes without the lock.
  it('goes without a stale lock it cannot move (a read-only file system), at once and without spinning', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${DEAD} ${HOST}\n`);
    const c = clock();
    let creates = 0;
    const readOnly = {
      ...fs,
      openSync: (file: string, flags: string | number, mode?: number) => {
        if (flags === 'wx' && ++creates > 200)
          throw new Error('spinning: 200 attempts to create the lock without a sleep');
        return fs.openSync(file, flags, mode);
      },
      renameSync: () => {
        throw Object.assign(new Error('EROFS: read-only file system, rename'), { code: 'EROFS' });
      },
    } as typeof fs;
    const outcome = await acquire(dir, KEY, options(), { ...c.deps, fs: readOnly });
    expect(outcome).toEqual({ kind: 'timeout' });
    expect(creates).toBeLessThan(5);
    expect(c.time()).toBe(START);
    expect(readFileSync(path, 'utf8')).toBe(`${DEAD} ${HOST}\n`);
  });

  it('gives up at once when its deadline has already passed', async () => {
    const dir = tempDir();
    plantLock(dir, `${ALIVE} ${HOST}\n`);
    const c = clock();
    const outcome = await acquire(
      dir,
      KEY,
      { deadline: START - 1, staleAfterMs: 35_000, patienceMs: 60_000, ready: never },
      c.deps,
    );
    expect(outcome).toMatchObject({ kind: 'timeout', holder: { pid: ALIVE } });
    expect(c.sleeps).toEqual([]);
  });

  it.each<[string, string, number]>([
    ['a dead pid of this host (SIGKILL while fetching)', `${DEAD} ${HOST}\n`, START],
    ['our own pid, which is not us since we have not taken it (a pid reused)', `${ME} ${HOST}\n`, START],
    ['a live pid but older than staleAfterMs (a hung or pid-reused holder)', `${ALIVE} ${HOST}\n`, START - 35_001],
    ['a pid of another host, older than staleAfterMs', `${ALIVE} another-host\n`, START - 35_001],
    [
      "another host's lock with a modification time in the future (a clock jump, or a planted lock)",
      `${ALIVE} another-host\n`,
      START + 60_000,
    ],
    ['no pid, written more than a second ago (killed between create and write)', '', START - 1_001],
    ['garbage instead of a pid, written more than a second ago', 'x\n', START - 1_001],
  ])('recovers a lock holding %s and takes it without waiting', async (_name, content, mtime) => {
    const dir = tempDir();
    plantLock(dir, content, mtime);
    const c = clock();
    const outcome = await acquire(dir, KEY, options(), c.deps);
    expect(outcome.kind).toBe('acquired');
    expect(c.sleeps).toEqual([]);
    expect(readFileSync(lockPath(dir, KEY), 'utf8')).toBe(MINE);
  });

  it('gives a holder that has not written its pid yet a second before recovering the lock', async () => {
    const dir = tempDir();
    plantLock(dir, '', START);
    const c = clock();
    const outcome = await acquire(
      dir,
      KEY,
      { deadline: START + 5_000, staleAfterMs: 35_000, patienceMs: 60_000, ready: never },
      c.deps,
    );
    expect(outcome.kind).toBe('acquired');
    expect(c.time() - START).toBeGreaterThan(1_000);
    expect(c.time() - START).toBeLessThanOrEqual(1_025);
  });

  it('does not recover a lock of a live holder that is younger than staleAfterMs', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST}\n`, START - 34_000);
    const outcome = await acquire(dir, KEY, options(), clock().deps);
    expect(outcome).toMatchObject({ kind: 'timeout', holder: { pid: ALIVE } });
    expect(statSync(path).mtimeMs).toBe(START - 34_000);
  });

  it.each([
    ['another host', `${DEAD} another-host\n`],
    ['no host (written by a version that did not record one)', `${DEAD}\n`],
  ])('does not judge a dead-looking pid of %s: only its age can make it stale', async (_name, content) => {
    const dir = tempDir();
    const path = plantLock(dir, content, START - 1_000);
    const outcome = await acquire(dir, KEY, options(), clock().deps);
    expect(outcome).toMatchObject({ kind: 'timeout', holder: { pid: DEAD } });
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('ignores a lock that is not ours (another mode), waiting rather than reading or breaking it', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${DEAD} ${HOST}\n`, START - 60_000);
    fs.chmodSync(path, 0o644);
    const outcome = await acquire(dir, KEY, options(), clock().deps);
    expect(outcome).toEqual({ kind: 'timeout' });
    expect(readdirSync(dir)).toEqual([`${KEY}.lock`]);
  });

  it('puts back a fresh lock that a second waiter took between our judging and our breaking', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${DEAD} ${HOST}\n`);
    const c = clock();
    // The rename of a breaker moves whatever is at the lock's name: replace the stale lock by a
    // fresh one just before it, as a faster waiter would.
    const real = c.deps.fs;
    let swapped = false;
    const racing = {
      ...real,
      renameSync: (from: string, to: string) => {
        if (!swapped && from === path) {
          swapped = true;
          real.unlinkSync(path);
          real.writeFileSync(path, `${ALIVE} ${HOST}\n`, { mode: 0o600, flag: 'w' });
          utimesSync(path, START / 1000, START / 1000);
        }
        real.renameSync(from, to);
      },
    } as typeof real;
    const outcome = await acquire(dir, KEY, options(), { ...c.deps, fs: racing });
    expect(outcome).toMatchObject({ kind: 'timeout', holder: { pid: ALIVE } });
    expect(readFileSync(path, 'utf8')).toBe(`${ALIVE} ${HOST}\n`);
    expect(readdirSync(dir)).toEqual([`${KEY}.lock`]);
  });

  it('throws when the lock cannot be created for another reason than EEXIST', async () => {
    const dir = join(tempDir(), 'missing');
    await expect(acquire(dir, KEY, options(), clock().deps)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  // SPEC Cache: the holder writes its deadline; a live holder is never taken over before it passed.
  it('takes over, once, the lock of a live holder whose own deadline has passed; a second waiter then waits on the new holder', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST} ${START + 3_000} fetch\n`, START - 5_000);
    const later = { deadline: START + 20_000, staleAfterMs: 35_000, patienceMs: 5_000, ready: never };
    const waiting = clock();
    const first = await acquire(dir, KEY, later, waiting.deps);
    expect(first).toMatchObject({ kind: 'acquired', tookOver: true });
    // Not before the holder's deadline (and its second of grace) had passed.
    expect(waiting.time()).toBeGreaterThan(START + 3_000 + 1_000);
    expect(waiting.time()).toBeLessThan(START + 3_000 + 1_050);
    expect(readFileSync(path, 'utf8')).toBe(`${ME} ${HOST} ${START + 20_000} fetch\n`);
    // Another waiter finds the new holder's lock, whose deadline is far: it waits, it does not take it too.
    utimesSync(path, waiting.time() / 1000, waiting.time() / 1000); // made just now, on the fake clock
    const other = clock();
    const second = await acquire(dir, KEY, options(never, 5_000), {
      ...other.deps,
      pid: ALIVE,
      alive: (pid) => pid === ME || pid === ALIVE,
    });
    expect(second).toMatchObject({ kind: 'timeout', holder: { pid: ME, deadline: START + 20_000 } });
    expect(readFileSync(path, 'utf8')).toBe(`${ME} ${HOST} ${START + 20_000} fetch\n`);
  });

  it('never takes over a live holder whose deadline ends after its own, however old its lock: it gives up at its deadline, naming the holder', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST} ${START + 2_000} fetch\n`, START - 30_000);
    const c = clock();
    const outcome = await acquire(dir, KEY, options(never, 5), c.deps);
    expect(outcome).toEqual({
      kind: 'timeout',
      holder: { pid: ALIVE, since: START - 30_000, deadline: START + 2_000, login: false },
    });
    expect(readFileSync(path, 'utf8')).toBe(`${ALIVE} ${HOST} ${START + 2_000} fetch\n`);
  });

  it("never takes over a login's lock while its holder lives, even past the deadline it wrote; a dead one's at once", async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST} ${START - 60_000} login\n`, START - 120_000);
    const c = clock();
    const seen: unknown[] = [];
    const outcome = await acquire(
      dir,
      KEY,
      { ...options(), onHolder: (holder) => (seen.push(holder), START + 1_000) },
      c.deps,
    );
    expect(outcome).toMatchObject({ kind: 'timeout', holder: { pid: ALIVE, login: true } });
    expect(seen[0]).toEqual({ pid: ALIVE, since: START - 120_000, deadline: START - 60_000, login: true });
    expect(readFileSync(path, 'utf8')).toBe(`${ALIVE} ${HOST} ${START - 60_000} login\n`);
    plantLock(dir, `${DEAD} ${HOST} ${START + 600_000} login\n`);
    expect(await acquire(dir, KEY, options(), clock().deps)).toMatchObject({ kind: 'acquired', tookOver: false });
  });

  it("writes a login's lock as one, and returns 'busy' at once when onHolder says to leave (stale-while-revalidate)", async () => {
    const dir = tempDir();
    const login = await acquire(dir, KEY, { ...options(), login: true }, clock().deps);
    expect(readFileSync(lockPath(dir, KEY), 'utf8')).toBe(`${ME} ${HOST} ${START + 1_000} login\n`);
    const c = clock();
    const busy = await acquire(
      dir,
      KEY,
      { ...options(), onHolder: () => 'leave' },
      { ...c.deps, pid: ALIVE, alive: (pid) => pid === ME },
    );
    expect(busy).toMatchObject({ kind: 'busy', holder: { pid: ME, login: true } });
    expect(c.sleeps).toEqual([]);
    if (login.kind === 'acquired') login.lock.release();
  });

  it("a fetch's lock rewritten as a login's (the same file) right before a person is asked: no longer taken over past its first deadline while its holder lives", async () => {
    const dir = tempDir();
    const path = lockPath(dir, KEY);
    const waiter = () => {
      const c = clock();
      return acquire(
        dir,
        KEY,
        { ...options(), deadline: START + 5_000 },
        { ...c.deps, pid: ALIVE, alive: (pid) => pid === ME },
      );
    };
    // A fetch's lock (an interactive call that only refreshes) is taken over past its deadline, as any fetch's.
    const fetching = await acquire(dir, KEY, options(), clock().deps);
    if (fetching.kind !== 'acquired') throw new Error(fetching.kind);
    utimesSync(path, START / 1000, START / 1000);
    const taken = await waiter();
    expect(taken).toMatchObject({ kind: 'acquired', tookOver: true });
    // Ours no more: not rewritten, and not removed on release.
    expect(fetching.lock.toLogin(START + 600_000)).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(`${ALIVE} ${HOST} ${START + 5_000} fetch\n`);
    fetching.lock.release();
    if (taken.kind === 'acquired') taken.lock.release();
    expect(readdirSync(dir)).toEqual([]);

    const mine = await acquire(dir, KEY, options(), clock().deps);
    if (mine.kind !== 'acquired') throw new Error(mine.kind);
    const { ino } = statSync(path);
    expect(mine.lock.toLogin(START + 600_000)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(`${ME} ${HOST} ${START + 600_000} login\n`);
    expect(statSync(path).ino).toBe(ino);
    utimesSync(path, START / 1000, START / 1000);
    expect(await waiter()).toMatchObject({
      kind: 'timeout',
      holder: { pid: ME, login: true, deadline: START + 600_000 },
    });
    mine.lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('waits on a live holder that wrote no deadline (an older version) while it is younger than staleAfterMs', async () => {
    const dir = tempDir();
    const path = plantLock(dir, `${ALIVE} ${HOST}\n`, START - 4_000);
    const c = clock();
    const outcome = await acquire(dir, KEY, options(never, 5_000), c.deps);
    expect(outcome).toMatchObject({ kind: 'timeout', holder: { pid: ALIVE, deadline: undefined } });
    expect(readFileSync(path, 'utf8')).toBe(`${ALIVE} ${HOST}\n`);
  });

  it('does not remove, on release, the lock a waiter took over from it', async () => {
    const dir = tempDir();
    const c = clock();
    const mine = await acquire(dir, KEY, options(), c.deps);
    if (mine.kind !== 'acquired') throw new Error(mine.kind);
    // A waiter judged our fetch hung and holds the lock now.
    fs.unlinkSync(lockPath(dir, KEY));
    plantLock(dir, `${ALIVE} ${HOST}\n`);
    mine.lock.release();
    expect(readFileSync(lockPath(dir, KEY), 'utf8')).toBe(`${ALIVE} ${HOST}\n`);
  });

  it.each([
    [
      'refused (ENOSPC: a full file system)',
      () => {
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
    ],
    ['short (a part of the pid written)', () => 1],
  ])(
    'removes a lock whose pid write is %s, and throws so that the call goes on without it',
    async (_name, writeSync) => {
      const dir = tempDir();
      const c = clock();
      const full = { ...c.deps.fs, writeSync } as typeof c.deps.fs;
      await expect(acquire(dir, KEY, options(), { ...c.deps, fs: full })).rejects.toMatchObject({ code: 'ENOSPC' });
      expect(readdirSync(dir)).toEqual([]);
      expect(c.sleeps).toEqual([]);
    },
  );
});

// The fast path serves a credential in its margin window without waiting only while liveHolder
// names someone a waiter would wait on: anything else goes to the full path, which takes over or fetches.
describe('liveHolder', () => {
  it('names a live holder of this host within the deadline it wrote, login or fetch', () => {
    const dir = tempDir();
    const c = clock();
    plantLock(dir, `${ALIVE} ${HOST} ${START + 5_000} fetch\n`);
    expect(liveHolder(dir, KEY, c.deps)).toEqual({ pid: ALIVE, since: START, deadline: START + 5_000, login: false });
    plantLock(dir, `${ALIVE} ${HOST} ${START + 5_000} login\n`);
    expect(liveHolder(dir, KEY, c.deps)?.login).toBe(true);
  });

  it('names nobody for no lock, a dead holder, a deadline past its grace, a lock with no deadline, or one not ours', () => {
    const dir = tempDir();
    const c = clock();
    expect(liveHolder(dir, KEY, c.deps)).toBeUndefined();
    plantLock(dir, `${DEAD} ${HOST} ${START + 5_000} fetch\n`);
    expect(liveHolder(dir, KEY, c.deps)).toBeUndefined();
    plantLock(dir, `${ALIVE} ${HOST} ${START - 2_000} fetch\n`);
    expect(liveHolder(dir, KEY, c.deps)).toBeUndefined();
    plantLock(dir, `${ALIVE}\n`);
    expect(liveHolder(dir, KEY, c.deps)).toBeUndefined();
    fs.chmodSync(plantLock(dir, `${ALIVE} ${HOST} ${START + 5_000} fetch\n`), 0o644);
    expect(liveHolder(dir, KEY, c.deps)).toBeUndefined();
    // Nothing was moved or removed: only a waiter that acts on it does that.
    expect(readdirSync(dir)).toEqual([`${KEY}.lock`]);
  });
});
