// The sizes the architecture keeps (docs/architecture.md, issue 24): small files named for the stage
// they serve, none over 400 lines, and a cli/ room of argv and formatting only (~1,300 lines at most),
// the use cases living in use-case/. A file that grows past its bound is split by stage, not let grow.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').length - 1;

it('keeps every source file at 400 lines or under', () => {
  const over = sources(join(ROOT, 'src'))
    .map((file) => [relative(ROOT, file), lines(file)] as const)
    .filter(([, count]) => count > 400);
  expect(over).toEqual([]);
});

it('keeps cli/ to argv, help, completion and formatting: 1,300 lines at most', () => {
  const total = sources(join(ROOT, 'src', 'cli')).reduce((sum, file) => sum + lines(file), 0);
  expect(total).toBeGreaterThan(0);
  expect(total).toBeLessThanOrEqual(1_300);
});
