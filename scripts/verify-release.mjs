// `node scripts/verify-release.mjs <release dir> <release dir>`: whether two `npm run release`
// made the same bytes (two clones in two places, or a rebuild of a published release): every file
// of either, compared byte for byte. Prints one line per file (`same` or how it differs) and exits 1
// when any differs or is in one only. docs/release.md, "Reproducible".
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Each file of two directories: `same`, `only in <dir>`, or the first offset where they differ. */
function compareReleases(a, b) {
  const names = [...new Set([...readdirSync(a), ...readdirSync(b)])].sort();
  return names.map((name) => {
    let left, right;
    try {
      left = readFileSync(join(a, name));
    } catch {
      return { name, verdict: `only in ${b}` };
    }
    try {
      right = readFileSync(join(b, name));
    } catch {
      return { name, verdict: `only in ${a}` };
    }
    if (left.equals(right)) return { name, verdict: 'same' };
    let at = 0;
    while (at < left.length && at < right.length && left[at] === right[at]) at++;
    return { name, verdict: `differs from byte ${at} (${left.length} and ${right.length} bytes)` };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [a, b] = process.argv.slice(2);
  if (!a || !b) {
    process.stderr.write('usage: node scripts/verify-release.mjs <release dir> <release dir>\n');
    process.exit(2);
  }
  const results = compareReleases(a, b);
  for (const { name, verdict } of results) process.stdout.write(`${name}: ${verdict}\n`);
  process.exitCode = results.every((r) => r.verdict === 'same') ? 0 : 1;
}
