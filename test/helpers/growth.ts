// Growth, not speed: the perf tier's tests time a piece of work at n and at 4n and compare the two, so
// that a busy machine (which slows both alike) cannot fail them, and quadratic work (16 times the time)
// still does. Runs alternate between the two sizes, so that a pause or a burst of load falls on both,
// and the median of each is taken.
import { expect } from 'vitest';

/** Linear work takes about 4 times as long at 4n; quadratic work 16 times. Between them, with room for noise. */
export const LINEAR_RATIO = 8;
/** Below this at n, a pause of the scheduler would make the ratio: sizes are chosen to take longer. */
const FLOOR_MS = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Times `work(n)` and `work(4 * n)` alternately, `runs` times each, and expects the median at 4n to stay
 * under `ratio` times the median at n. `work` (which may return a promise) checks its own result.
 */
export async function expectLinear(
  work: (n: number) => unknown,
  n: number,
  { ratio = LINEAR_RATIO, runs = 3 }: { ratio?: number; runs?: number } = {},
): Promise<void> {
  const small: number[] = [];
  const large: number[] = [];
  // Once untimed: the first call compiles the code it runs.
  await work(n);
  for (let run = 0; run < runs; run++) {
    for (const [size, times] of [
      [n, small],
      [4 * n, large],
    ] as const) {
      const started = performance.now();
      await work(size);
      times.push(performance.now() - started);
    }
  }
  const [atN, at4n] = [Math.max(median(small), FLOOR_MS), median(large)];
  expect(at4n / atN, `median ${at4n.toFixed(1)} ms at ${4 * n} against ${atN.toFixed(1)} ms at ${n}`).toBeLessThan(
    ratio,
  );
}
