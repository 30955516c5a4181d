// Linear work shown by growth, not by the clock (issue 34: a busy machine made every fixed deadline
// fail): `run` at each size, smallest first, the best of three runs each (another process taking the
// core makes one run slow, not three), and the largest's time over the smallest's must stay under
// half the square of their sizes' ratio (4 times the input: linear about 4, quadratic 16).
import { expect } from 'vitest';

export function expectLinear(sizes: number[], run: (size: number) => void): void {
  const times = sizes.map((size) => {
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      run(size);
      best = Math.min(best, performance.now() - start);
    }
    return best;
  });
  const ratio = sizes.at(-1)! / sizes[0]!;
  expect(times.at(-1)! / Math.max(times[0]!, 1)).toBeLessThan((ratio * ratio) / 2);
}
