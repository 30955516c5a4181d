// A cache directory two hosts share (NFS) is judged with three clocks: the holder's (the deadline it
// writes into its lock), the waiter's (its now), and the file server's (the lock's mtime). Each is
// injected here: one real time that the waiter's sleep advances, each clock an offset from it, the
// mtime set as the server would. (Two containers of one pod share the kernel's clock: no skew there.)
import fs, { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquire, liveHolder, lockPath, type LockDeps } from '../../src/cache/lock.js';

const KEY = 'd'.repeat(64);
const START = Date.parse('2030-01-01T00:00:00Z');
const HOLDER = 777;
const WAITER = 4242;
/** What the holder's call may take (its --timeout), and the second of grace lock.ts gives past it. */
const HOLD = 30_000;
const GRACE = 1_000;
const SKEW = 6_000;

interface World {
  /** The real time (ms), advanced by the waiter's sleep. */
  real: number;
}

function depsOf(world: World, offset: number, pid: number, host: string, alive: (pid: number) => boolean): LockDeps {
  let uniques = 0;
  return {
    fs,
    now: () => world.real + offset,
    sleep: async (ms) => void (world.real += ms),
    pid,
    alive,
    host: () => host,
    unique: () => `${pid}-${++uniques}`,
    ...(process.getuid ? { uid: process.getuid() } : {}),
  };
}

interface Setup {
  /** The holder's clock minus the waiter's. */
  holder: number;
  /** The file server's clock (the lock's mtime) minus the waiter's. */
  server: number;
  sameHost: boolean;
  login?: boolean;
  /** Whether the holder's process lives (only a pid of the same host can say). */
  holderAlive?: boolean;
}

/** The holder's lock, taken at real time START with its own clock, stamped with the server's. */
async function held({ holder, server, sameHost, login = false, holderAlive = true }: Setup) {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-lock-clocks-'));
  const world: World = { real: START };
  const holderHost = 'boot-h/pid:[1]';
  const alive = (pid: number) => pid === WAITER || (pid === HOLDER && holderAlive);
  const holderDeps = depsOf(world, holder, HOLDER, holderHost, alive);
  const taken = await acquire(
    dir,
    KEY,
    { deadline: holderDeps.now() + HOLD, staleAfterMs: 35_000, patienceMs: 60_000, ready: () => false, login },
    holderDeps,
  );
  if (taken.kind !== 'acquired') throw new Error(taken.kind);
  const stamp = (START + server) / 1000;
  utimesSync(lockPath(dir, KEY), stamp, stamp);
  const waiter = depsOf(world, 0, WAITER, sameHost ? holderHost : 'boot-w/pid:[1]', alive);
  return {
    world,
    /** The waiter waits up to `waitMs` of its own clock. */
    wait: (waitMs: number) =>
      acquire(
        dir,
        KEY,
        { deadline: waiter.now() + waitMs, staleAfterMs: 35_000, patienceMs: 60_000, ready: () => false },
        waiter,
      ),
    /** Whether the waiter, at `ms` of real time after the lock was written, would wait on the holder. */
    liveAt: (ms: number) => {
      world.real = START + ms;
      return liveHolder(dir, KEY, waiter) !== undefined;
    },
  };
}

describe('a lock judged with the holder, the waiter and the file server on different clocks', () => {
  // An NFS home directory whose server runs ahead of this host: every lock's mtime is in our future.
  // The pid decides for a holder of this host; the mtime once did first, and took every lock over at
  // once: a live login's too (a second prompt, which SPEC "Cache" rules out), and single flight was lost.
  it.each([
    ['a fetch', false],
    ['a login', true],
  ])(
    "on this host, with the file server's clock 6 s ahead: %s's live lock is waited on, not taken over",
    async (_name, login) => {
      const lock = await held({ holder: 0, server: SKEW, sameHost: true, login });
      const outcome = await lock.wait(2_000);
      expect(outcome).toMatchObject({ kind: 'timeout', holder: { pid: HOLDER, login } });
      expect(lock.world.real - START).toBeGreaterThanOrEqual(2_000 - 25);
    },
  );

  // What the mtime rule was for, kept: this host's clock went back an hour after a holder (alive, but
  // hung: a kubectl stopped with Ctrl-Z) wrote its deadline on it.
  it("on this host, after our clock went back an hour: a live fetch's lock is taken over at once, not waited on for the hour", async () => {
    const lock = await held({ holder: 3_600_000, server: 3_600_000, sameHost: true });
    expect(await lock.wait(2_000)).toMatchObject({ kind: 'acquired' });
    expect(lock.world.real).toBe(START);
  });

  it("on this host, with the file server's clock 6 s ahead: a dead holder's lock is taken over at once", async () => {
    const lock = await held({ holder: 0, server: SKEW, sameHost: true, holderAlive: false });
    expect(await lock.wait(2_000)).toMatchObject({ kind: 'acquired', tookOver: false });
    expect(lock.world.real).toBe(START);
  });

  // Another host's pid says nothing here: its lock is judged by time alone, its deadline read on our clock.
  it("another host 6 s ahead, whose lock the server stamps on the holder's clock: its live lock is taken over at once (one extra request)", async () => {
    const lock = await held({ holder: SKEW, server: SKEW, sameHost: false });
    expect(await lock.wait(60_000)).toMatchObject({ kind: 'acquired', tookOver: false });
    expect(lock.world.real).toBe(START);
  });

  it.each([
    ["the holder's", -SKEW],
    ["the waiter's", 0],
  ])(
    'another host 6 s behind (the server on %s clock): its live lock is taken over 5 s before its own deadline (one extra request)',
    async (_name, server) => {
      const lock = await held({ holder: -SKEW, server, sameHost: false });
      // The holder's own deadline passes at HOLD of real time; the waiter's reading of it, SKEW earlier.
      expect(lock.liveAt(HOLD - SKEW + GRACE)).toBe(true);
      expect(lock.liveAt(HOLD - SKEW + GRACE + 1)).toBe(false);
      lock.world.real = START;
      expect(await lock.wait(60_000)).toMatchObject({ kind: 'acquired', tookOver: true });
      expect(lock.world.real - START).toBeGreaterThan(HOLD - SKEW + GRACE);
      expect(lock.world.real - START).toBeLessThanOrEqual(HOLD - SKEW + GRACE + 25);
    },
  );

  // The stuck direction: a holder on another host died (its pid cannot be judged from here) and wrote
  // a deadline on a clock ahead of ours. A waiter whose own deadline ends first gives up naming it (exit
  // 3, or the credential it can serve through); for the skew longer than with agreed clocks, and never
  // longer than 16 minutes from the lock's mtime however far ahead the holder's clock runs.
  it("another host ahead (the server on the waiter's clock): its dead lock is waited on for the skew longer, at most 16 min from its mtime", async () => {
    const ahead = await held({ holder: SKEW, server: 0, sameHost: false, holderAlive: false });
    expect(ahead.liveAt(HOLD + SKEW + GRACE)).toBe(true);
    expect(ahead.liveAt(HOLD + SKEW + GRACE + 1)).toBe(false);
    ahead.world.real = START;
    expect(await ahead.wait(HOLD)).toMatchObject({ kind: 'timeout', holder: { pid: HOLDER } });

    const hourAhead = await held({ holder: 3_600_000, server: 0, sameHost: false, holderAlive: false });
    expect(hourAhead.liveAt(16 * 60_000 + GRACE)).toBe(true);
    expect(hourAhead.liveAt(16 * 60_000 + GRACE + 1)).toBe(false);
  });
});
