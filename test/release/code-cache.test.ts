// scripts/sea.mjs's training makes the V8 code cache of the executable's assets by running them. How
// often a function runs there can depend on the machine's load (how a reply arrives in chunks, how
// often a loop waits), and V8's baseline compiler (Sparkplug) compiles a function after it has run
// enough, which leaves a mark in the cache: two releases of one commit made on a busy CI machine
// differed in four bytes of linux-x64's cache. Here an asset runs a function a number of times its
// environment decides (once, or many times), and the caches must still be the same bytes, and accepted by a
// process of V8's default flags. The whole release: test/release/release.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterAll, expect, it } from 'vitest';
import { blob } from '../../scripts/sea.mjs';

const work = mkdtempSync(join(tmpdir(), 'webapi-credential-code-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The fast asset as MAIN runs it: a function of (exports, require, module) that loads the full one. PATH is the one variable
// of the builder's environment the training passes on; its length's parity decides the count.
const FAST = `(function (exports, require, module) {
  function step(n) { return (n * 31 + 7) % 1009; }
  let x = 0;
  const times = process.env.PATH.length % 2 === 0 ? 1 : 20000;
  for (let i = 0; i < times; i++) x = step(x + i);
  module.exports.x = x;
  const { getAsset } = require('node:sea');
  new (require('node:vm').Script)(getAsset('full.cjs', 'utf8'), { filename: 'sea-asset:full.cjs' }).runInThisContext();
})`;

it("the assets' code cache is the same bytes however often the training ran a function", async () => {
  const sources = {
    main: join(work, 'cli.cjs'),
    assets: { 'fast.cjs': join(work, 'fast.cjs'), 'full.cjs': join(work, 'full.cjs') },
  };
  writeFileSync(sources.main, 'module.exports = 0;\n');
  writeFileSync(sources.assets['fast.cjs'], FAST);
  writeFileSync(sources.assets['full.cjs'], 'module.exports = {};\n');
  const path = process.env['PATH'] ?? '/usr/bin:/bin';
  const caches = [];
  try {
    for (const [i, extra] of [':/a', ':/ab'].entries()) {
      process.env['PATH'] = path + extra;
      await blob(process.execPath, sources, join(work, `${i}.blob`), true, false);
      caches.push(readFileSync(join(work, `${i}.blob.fast.cache`)));
    }
  } finally {
    process.env['PATH'] = path;
  }
  expect(caches[0]!.length).toBeGreaterThan(0);
  expect(caches[0]!.equals(caches[1]!)).toBe(true);
  // This process runs V8's default flags, as the executable does: the cache fits them.
  const script = new Script(readFileSync(sources.assets['fast.cjs'], 'utf8'), {
    filename: 'sea-asset:fast.cjs',
    cachedData: caches[0]!,
  });
  expect(script.cachedDataRejected).toBe(false);
});
