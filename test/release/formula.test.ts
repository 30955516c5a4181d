// The Homebrew formula's `test do` (what `brew test` and a tap's CI run), run by Debian's ruby with a
// stand-in of the Homebrew it uses (homebrew-stand-in.rb) against the real binary: this machine's,
// dist/webapi-credential (npm run build:binary), which answers as the darwin ones do but for its
// platform. The formula of 0.1.0 expected `--version` to print the bare version and failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { describeWith, RUBY } from '../helpers/tools.js';
import { formula } from '../../scripts/formula.mjs';

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
const BINARY = join(ROOT, 'dist', 'webapi-credential');
const STAND_IN = join(ROOT, 'test', 'release', 'homebrew-stand-in.rb');
const scratch = mkdtempSync(join(tmpdir(), 'webapi-credential-formula-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const archive = (platform: string, least: string) => ({
  url: `https://github.com/o/r/releases/download/v${PACKAGE.version}/webapi-credential-${PACKAGE.version}-${platform}.tar.gz`,
  sha256: '0'.repeat(64),
  least,
});
const FORMULA = formula({
  version: PACKAGE.version,
  description: 'Generic Kubernetes client-go exec credential plugin',
  homepage: 'https://github.com/o/r',
  license: PACKAGE.license,
  arm: archive('darwin-arm64', '11.0'),
  intel: archive('darwin-x64', '13.5'),
});

/** Runs the formula's `test do` with `bin` holding the binary; what the formula declares, or the failure. */
function brewTest(text: string, binary = BINARY) {
  const dir = mkdtempSync(join(scratch, 'run-'));
  mkdirSync(join(dir, 'bin'));
  symlinkSync(binary, join(dir, 'bin', 'webapi-credential'));
  writeFileSync(join(dir, 'webapi-credential.rb'), text);
  // The environment Homebrew gives a test: a PATH, nothing of the caller's.
  return spawnSync(RUBY.path!, [STAND_IN, join(dir, 'webapi-credential.rb'), join(dir, 'bin')], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin' },
  });
}

describeWith(RUBY)("the Homebrew formula's test do", () => {
  it('passes against the real binary', () => {
    if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: npm run build:binary`);
    const run = brewTest(FORMULA);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({ version: PACKAGE.version, license: PACKAGE.license });
  });

  it('fails where the binary does not answer as it expects: the test of 0.1.0, and a binary that is not this one', () => {
    const old = FORMULA.replace(
      / {2}test do\n[\s\S]*?\n {2}end\n/,
      '  test do\n    assert_equal version.to_s, shell_output("#{bin}/webapi-credential --version").strip\n  end\n',
    );
    expect(old).not.toBe(FORMULA);
    const run = brewTest(old);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^test do failed: expected "0\.1\.0", got "webapi-credential 0\.1\.0 \(node v24\.\d+\.\d+, linux-x64\)"\n$/,
    );
    // A binary that names no Node nor platform.
    const bare = join(scratch, 'bare');
    writeFileSync(bare, `#!/bin/sh\necho 'webapi-credential ${PACKAGE.version}'\n`, { mode: 0o755 });
    const other = brewTest(FORMULA, bare);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/^test do failed: expected .* to match "webapi-credential 0\.1\.0\\n"\n$/);
  });

  it('states the least macOS of each binary: 11.0 on Apple silicon (Node 22), 13.5 on Intel (Node 24)', () => {
    const declared = JSON.parse(brewTest(FORMULA).stdout);
    expect(declared.on.macos.on.arm.depends_on).toEqual([{ macos: 'big_sur' }]);
    expect(declared.on.macos.on.intel.depends_on).toEqual([{ macos: 'ventura' }]);
    expect(FORMULA).toContain('# The least macOS: 11.0 on Apple silicon, 13.5 on Intel');
  });
});
