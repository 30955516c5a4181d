// The release workflow cannot run here: it is linted (action-validator, from npm, checks it against
// GitHub's workflow schema) and held to what a release is. What it uploads is dist/release/* as
// npm run release leaves it: the one list of files is release.mjs's (test/release/release.test.ts
// checks that directory file by file), the workflow names none of them.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { PINNED_NODE, ROOT } from '../helpers/cli.js';

const WORKFLOW = join(ROOT, '.github', 'workflows', 'release.yml');
const VALIDATOR = join(ROOT, 'node_modules', '@action-validator', 'cli', 'cli.mjs');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
const workflow = YAML.parse(readFileSync(WORKFLOW, 'utf8')) as {
  on: { push: { tags: string[] } };
  jobs: Record<string, { steps: Step[]; permissions: Record<string, string> }>;
};
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const runs = steps.map((step) => step.run ?? '');
const indexOf = (pattern: RegExp) => runs.findIndex((run) => pattern.test(run));

describe('the release workflow', () => {
  // action-validator 0.6.0 (the newest on npm) carries a workflow schema older than the
  // `attestations` permission, which actions/attest-build-provenance needs (GitHub's docs on
  // workflow permissions list it): it is validated without that one line, which is checked alone.
  const ATTESTATIONS = '      attestations: write # the build-provenance attestations\n';
  const validate = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-workflow-'));
    try {
      writeFileSync(join(dir, 'release.yml'), text);
      const result = spawnSync(PINNED_NODE, [VALIDATOR, join(dir, 'release.yml')], { encoding: 'utf8' });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('passes action-validator (but for the attestations permission its schema predates)', () => {
    const text = readFileSync(WORKFLOW, 'utf8');
    expect(text.split(ATTESTATIONS)).toHaveLength(2);
    expect(validate(text.replace(ATTESTATIONS, ''))).toEqual({ status: 0, stdout: '', stderr: '' });
    // Only that: with it, the one refusal is of the job's permissions.
    const refused = validate(text);
    expect(refused.status).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('"path": "/jobs/release/permissions"');
    expect(workflow.jobs['release']!.permissions['attestations']).toBe('write');
  });

  it('is linted for real: action-validator refuses the workflow with a misspelt key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-workflow-'));
    try {
      const broken = join(dir, 'release.yml');
      writeFileSync(broken, readFileSync(WORKFLOW, 'utf8').replace('runs-on:', 'run-on:'));
      const result = spawnSync(PINNED_NODE, [VALIDATOR, broken], { encoding: 'utf8' });
      expect(result.status).toBe(1);
      expect(result.stdout + result.stderr).toContain("Additional property 'run-on' is not allowed");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs on a version tag: npm ci, npm test, the perf and release tiers (.ci/run), then npm run release, then publishes', () => {
    expect(workflow.on.push.tags).toEqual(['v*']);
    const order = [/\.ci\/run/, /npm run release/, /gh release create/, /npm publish/, /docker buildx build/].map(
      indexOf,
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // .ci/run is npm ci, npm test, then the perf and release tiers, with CI=true so that no suite skips.
    expect(
      execFileSync('grep', ['-E', '^(npm ci|npm test|npm run test:|export CI=true)', join(ROOT, '.ci', 'run')], {
        encoding: 'utf8',
      }),
    ).toBe('export CI=true\nnpm ci --no-audit --no-fund\nnpm test\nnpm run test:perf\nnpm run test:release\n');
  });

  it('uploads every file of dist/release and nothing else, and publishes the tarball npm run release made, with provenance', () => {
    expect(runs[indexOf(/gh release create/)]).toMatch(/ dist\/release\/\*$/);
    expect(runs.filter((run) => run.includes('dist/release')).length).toBe(3);
    expect(runs[indexOf(/npm publish/)]).toBe(
      'npm publish --provenance --access public dist/release/webapi-credential-*.tgz',
    );
    expect(Object.values(workflow.jobs)[0]!.permissions).toMatchObject({
      'id-token': 'write',
      contents: 'write',
      packages: 'write',
    });
  });

  it('releases again from another checkout path and finds every file the same, before anything is published', () => {
    const again = indexOf(/verify-release/);
    expect(again).toBeGreaterThan(indexOf(/npm run release/));
    expect(again).toBeLessThan(indexOf(/gh release create/));
    const lines = runs[again]!.trim().split('\n');
    // A second checkout of the same commit elsewhere, released whole, compared file by file (exit 1 on any difference).
    expect(lines).toContain('git worktree add --detach "$elsewhere"');
    expect(lines).toContain('(cd "$elsewhere" && sudo env "PATH=$PATH" npm run release)');
    expect(lines.at(-1)).toBe('node scripts/verify-release.mjs dist/release "$elsewhere/dist/release"');
    expect(runs[again]).not.toContain('RELEASE_PLATFORMS');
  });

  it('attests the build provenance of every binary, archive and the SBOM, after npm run release and before publishing', () => {
    const at = steps.findIndex((step) => step.uses?.startsWith('actions/attest-build-provenance@'));
    expect(at).toBeGreaterThan(indexOf(/npm run release/));
    expect(at).toBeLessThan(indexOf(/gh release create/));
    const patterns = String(steps[at]!.with?.['subject-path']).trim().split('\n');
    expect(Object.values(workflow.jobs)[0]!.permissions).toMatchObject({ 'id-token': 'write', attestations: 'write' });
    // The patterns (shell globs) against what a release holds: every binary, archive and the SBOM, not the rest.
    const glob = (pattern: string) =>
      new RegExp(`^${pattern.replace('dist/release/', '').replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
    const attested = (name: string) => patterns.some((pattern) => glob(pattern).test(name));
    const platforms = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win-x64', 'win-arm64'];
    const published = platforms.flatMap((p) =>
      p.startsWith('win-')
        ? [`webapi-credential-1.2.3-${p}.exe`, `webapi-credential-1.2.3-${p}.zip`]
        : [`webapi-credential-1.2.3-${p}`, `webapi-credential-1.2.3-${p}.tar.gz`],
    );
    expect([...published, 'webapi-credential-1.2.3.cdx.json'].filter((name) => !attested(name))).toEqual([]);
    expect(
      ['SHA256SUMS', 'webapi-credential.rb', 'webapi-credential.json', 'webapi-credential-1.2.3.tgz'].filter(attested),
    ).toEqual([]);
  });

  it('pins every action by a full commit SHA, with the release it is named beside', () => {
    const uses = steps.map((step) => step.uses).filter((uses): uses is string => uses !== undefined);
    expect(uses.length).toBeGreaterThanOrEqual(5);
    for (const action of uses) expect(action).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
    const text = readFileSync(WORKFLOW, 'utf8');
    for (const action of uses) expect(text).toMatch(new RegExp(`uses: ${action} # v\\d+\\.\\d+\\.\\d+\\n`));
  });

  it('checks every file it downloads against a checksum before using it', () => {
    const downloads = runs.flatMap((run) => run.split('\n')).filter((line) => /\b(curl|wget)\b/.test(line));
    expect(downloads.length).toBeGreaterThan(0);
    // Each file curl writes (-o) is either a checksum or named in a `sha256sum --check` of the same run.
    for (const run of runs.filter((r) => /\bcurl\b/.test(r))) {
      const files = [...run.matchAll(/curl [^\n]*-\w*o (\S+)/g)].map((m) => m[1]!);
      const checked = files.filter((f) => !f.endsWith('.sha256'));
      expect(checked.length).toBeGreaterThan(0);
      const check = run.indexOf('sha256sum --check');
      expect(check).toBeGreaterThan(-1);
      for (const file of checked) {
        expect(run.slice(check - 80, check)).toContain(`  ${file}"`);
        // Installed only after the check.
        expect(run.indexOf(`install -m 0755 ${file}`)).toBeGreaterThan(check);
      }
    }
  });

  it('pushes the image for amd64 and arm64 with buildx', () => {
    expect(steps.some((step) => step.uses?.startsWith('docker/setup-buildx-action@'))).toBe(true);
    expect(runs[indexOf(/docker buildx build/)]).toMatch(/--platform linux\/amd64,linux\/arm64 .*--push \.\n$/s);
  });
});
