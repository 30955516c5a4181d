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
const workflow = YAML.parse(readFileSync(WORKFLOW, 'utf8')) as { on: { push: { tags: string[] } }; jobs: Record<string, { steps: Step[]; permissions: Record<string, string> }> };
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const runs = steps.map((step) => step.run ?? '');
const indexOf = (pattern: RegExp) => runs.findIndex((run) => pattern.test(run));

describe('the release workflow', () => {
  it('passes action-validator', () => {
    const result = spawnSync(PINNED_NODE, [VALIDATOR, WORKFLOW], { encoding: 'utf8' });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
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

  it('runs on a version tag: npm ci and npm test (.ci/run), then npm run release, then publishes', () => {
    expect(workflow.on.push.tags).toEqual(['v*']);
    const order = [/\.ci\/run/, /npm run release/, /gh release create/, /npm publish/, /docker buildx build/].map(indexOf);
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // .ci/run is npm ci then npm test, with CI=true so that no suite skips.
    expect(execFileSync('grep', ['-E', '^(npm ci|npm test|export CI=true)', join(ROOT, '.ci', 'run')], { encoding: 'utf8' })).toBe('export CI=true\nnpm ci --no-audit --no-fund\nnpm test\n');
  });

  it('uploads every file of dist/release and nothing else, and publishes the tarball npm run release made, with provenance', () => {
    expect(runs[indexOf(/gh release create/)]).toMatch(/ dist\/release\/\*$/);
    expect(runs.filter((run) => run.includes('dist/release')).length).toBe(2);
    expect(runs[indexOf(/npm publish/)]).toBe('npm publish --provenance --access public dist/release/webapi-credential-*.tgz');
    expect(Object.values(workflow.jobs)[0]!.permissions).toMatchObject({ 'id-token': 'write', contents: 'write', packages: 'write' });
  });

  it('pushes the image for amd64 and arm64 with buildx', () => {
    expect(steps.some((step) => step.uses?.startsWith('docker/setup-buildx-action@'))).toBe(true);
    expect(runs[indexOf(/docker buildx build/)]).toMatch(/--platform linux\/amd64,linux\/arm64 .*--push \.\n$/s);
  });
});
