// `kubeconfig --merge --kuberc`: the plugin's absolute path (found on the PATH as kubectl finds it)
// added to credentialPluginAllowlist of the kuberc kubectl reads ($KUBERC, else ~/.kube/kuberc) when
// its credentialPluginPolicy is Allowlist (kubectl >= 1.35), everything else in the file kept; read
// back against the kuberc schema. Other policies are left as they are.
import {
  chmodSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runInProcess } from '../helpers/in-process.js';
import type { CliDeps } from '../../src/cli/deps.js';

type CacheFs = CliDeps['cache']['fs'];

// The kuberc schema, kubectl.config.k8s.io/v1beta1 Preference, as the Go types of
// kubernetes/kubectl pkg/config/v1beta1/types.go (staging/src/k8s.io/kubectl/pkg/config/v1beta1 in
// kubernetes/kubernetes) define it in 1.36: the JSON field names, their kinds, the policy's values
// ("" means AllowAll), and the rules their comments state (an allowlist entry sets at least one
// field; the allowlist only with the Allowlist policy). `name` is 1.35's field, deprecated in 1.36
// for `command`. Unknown fields fail, as in kubectl's strict decoding.
type Shape =
  'string' | { list: Record<string, Shape> | 'string' } | { object: Record<string, Shape> } | { oneOf: string[] };
const OPTION: Record<string, Shape> = { name: 'string', default: 'string' };
const PREFERENCE: Record<string, Shape> = {
  apiVersion: { oneOf: ['kubectl.config.k8s.io/v1beta1'] },
  kind: { oneOf: ['Preference'] },
  defaults: { list: { command: 'string', options: { list: OPTION } } },
  aliases: {
    list: {
      name: 'string',
      command: 'string',
      prependArgs: { list: 'string' },
      appendArgs: { list: 'string' },
      options: { list: OPTION },
    },
  },
  credentialPluginPolicy: { oneOf: ['', 'AllowAll', 'DenyAll', 'Allowlist'] },
  credentialPluginAllowlist: { list: { name: 'string', command: 'string' } },
};

/** The problems of `value` against `shape` at `path`: empty when it conforms. */
function check(value: unknown, shape: Shape | Record<string, Shape>, path: string): string[] {
  if (shape === 'string') return typeof value === 'string' ? [] : [`${path}: not a string`];
  if ('oneOf' in shape && Array.isArray(shape.oneOf))
    return shape.oneOf.includes(value as string) ? [] : [`${path}: not one of ${shape.oneOf.join(', ')}`];
  if ('list' in shape && (typeof shape.list === 'string' || typeof shape.list === 'object')) {
    if (!Array.isArray(value)) return [`${path}: not a list`];
    return value.flatMap((item, i) => check(item, shape.list as Shape, `${path}[${i}]`));
  }
  const fields = ('object' in shape ? shape.object : shape) as Record<string, Shape>;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: not an object`];
  return Object.entries(value).flatMap(([key, item]) =>
    fields[key] ? check(item, fields[key]!, `${path}.${key}`) : [`${path}.${key}: unknown field`],
  );
}

function kubercProblems(text: string): string[] {
  const preference = YAML.parse(text) as Record<string, unknown>;
  const problems = check(preference, { object: PREFERENCE }, '$');
  for (const key of ['apiVersion', 'kind']) if (!(key in preference)) problems.push(`$.${key}: missing`);
  const allowlist = (preference['credentialPluginAllowlist'] ?? []) as Record<string, string>[];
  if (allowlist.length > 0 && preference['credentialPluginPolicy'] !== 'Allowlist')
    problems.push('$.credentialPluginAllowlist: set without the Allowlist policy');
  allowlist.forEach((entry, i) => {
    if (!entry['name'] && !entry['command']) problems.push(`$.credentialPluginAllowlist[${i}]: no field set`);
  });
  return problems;
}

const EXISTING = `# my kubectl preferences
apiVersion: kubectl.config.k8s.io/v1beta1
kind: Preference
defaults:
  - command: apply
    options:
      - name: server-side
        default: "true"
aliases:
  - name: getn
    command: get
    prependArgs:
      - node
credentialPluginPolicy: Allowlist
credentialPluginAllowlist:
  - name: /usr/lib/google-cloud-sdk/bin/gke-gcloud-auth-plugin # GKE
`;

const work = mkdtempSync(join(tmpdir(), 'webapi-credential-kuberc-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const CONFIG = join(work, 'config.yaml');
writeFileSync(
  CONFIG,
  'webAPIProviderConfig:\n  method: POST\n  url: https://token.example.com/token\n  tokenPath: $.access_token\n',
);

/** A home with webapi-credential installed in bin/ (on the PATH), a kubeconfig and `kuberc` (undefined: none). */
function setup(kuberc: string | undefined) {
  const dir = mkdtempSync(join(work, 'home-'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'webapi-credential'), '#!/bin/sh\n');
  chmodSync(join(dir, 'bin', 'webapi-credential'), 0o755);
  if (kuberc !== undefined) writeFileSync(join(dir, 'kuberc'), kuberc);
  const env = {
    HOME: dir,
    PATH: `${join(dir, 'bin')}:/usr/bin:/bin`,
    KUBERC: join(dir, 'kuberc'),
    KUBECONFIG: join(dir, 'kubeconfig'),
  };
  const run = (...flags: string[]) =>
    runInProcess(
      ['kubeconfig', '--server', 'https://k8s.example.com:6443', '--config', CONFIG, '--name', 'prod', ...flags],
      { env },
    );
  return { dir, plugin: join(dir, 'bin', 'webapi-credential'), kuberc: join(dir, 'kuberc'), run };
}

const PREFIX = 'webapi-credential: ';

describe('kubeconfig --merge --kuberc', () => {
  it("adds the plugin's absolute path to the Allowlist policy's list, keeps the rest and its comments, and the file stays a valid Preference", async () => {
    const home = setup(EXISTING);
    const result = await home.run('--merge', '--kuberc');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`${PREFIX}wrote ${home.plugin} to credentialPluginAllowlist in ${home.kuberc}\n`);
    const text = readFileSync(home.kuberc, 'utf8');
    expect(kubercProblems(text)).toEqual([]);
    const preference = YAML.parse(text);
    expect(preference.credentialPluginAllowlist).toEqual([
      { name: '/usr/lib/google-cloud-sdk/bin/gke-gcloud-auth-plugin' },
      { name: home.plugin },
    ]);
    expect(preference.aliases).toEqual([{ name: 'getn', command: 'get', prependArgs: ['node'] }]);
    expect(text.startsWith(EXISTING.replace(/\n$/, ''))).toBe(true);
    expect(statSync(home.kuberc).mode & 0o777).toBe(0o600);
    // The kubeconfig entry runs the command the kuberc allows: the same name, found on the same PATH.
    expect(YAML.parse(readFileSync(join(home.dir, 'kubeconfig'), 'utf8')).users[0].user.exec.command).toBe(
      'webapi-credential',
    );

    // Twice: nothing more.
    const again = await home.run('--merge', '--kuberc');
    expect(again.stderr).toContain(`${PREFIX}unchanged: ${home.kuberc} allows ${home.plugin} already\n`);
    expect(readFileSync(home.kuberc, 'utf8')).toBe(text);
  });

  it('writes the `command` spelling (kubectl 1.36) where the file uses it, and a --command path as it is', async () => {
    const home = setup(
      'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: Allowlist\ncredentialPluginAllowlist:\n- command: kubelogin\n',
    );
    const result = await home.run('--merge', '--kuberc', '--command', '/opt/wc/webapi-credential');
    expect(result.code).toBe(0);
    const text = readFileSync(home.kuberc, 'utf8');
    expect(kubercProblems(text)).toEqual([]);
    expect(YAML.parse(text).credentialPluginAllowlist).toEqual([
      { command: 'kubelogin' },
      { command: '/opt/wc/webapi-credential' },
    ]);
  });

  it('leaves any other policy, or no kuberc, as it is: every plugin runs, or (DenyAll) the user chose none', async () => {
    for (const [kuberc, note] of [
      [undefined, 'does not exist: kubectl runs every plugin, no allowlist needed'],
      [
        'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\n',
        'sets credentialPluginPolicy: (none): kubectl runs every plugin, no allowlist needed',
      ],
      [
        'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: AllowAll\n',
        'sets credentialPluginPolicy: AllowAll: kubectl runs every plugin, no allowlist needed',
      ],
    ] as const) {
      const home = setup(kuberc);
      const result = await home.run('--merge', '--kuberc');
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`${PREFIX}unchanged: ${home.kuberc} ${note}\n`);
      expect(kuberc === undefined ? existsSync(home.kuberc) : readFileSync(home.kuberc, 'utf8')).toBe(
        kuberc === undefined ? false : kuberc,
      );
    }
    const deny = setup(
      'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: DenyAll\n',
    );
    const result = await deny.run('--merge', '--kuberc');
    expect(result.stderr).toContain(
      `credentialPluginPolicy: DenyAll, so kubectl runs no plugin; left as it is (to allow this one: credentialPluginPolicy: Allowlist and the entry name: ${deny.plugin})`,
    );
    expect(readFileSync(deny.kuberc, 'utf8')).toContain('DenyAll');
  });

  it('fails on a kuberc that is not YAML or not a mapping, a command not on the PATH, and --kuberc without --merge: exit 2, the file untouched', async () => {
    for (const [kuberc, message] of [
      ['credentialPluginPolicy: [Allowlist\n', 'is not valid YAML'],
      ['- a list\n', 'is not a kuberc (not a mapping)'],
      [
        'credentialPluginPolicy: Allowlist\ncredentialPluginAllowlist: /usr/bin/x\n',
        'credentialPluginAllowlist is not a list',
      ],
    ] as const) {
      const home = setup(kuberc);
      const result = await home.run('--merge', '--kuberc');
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
      expect(result.stderr).toContain(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(readFileSync(home.kuberc, 'utf8')).toBe(kuberc);
      // Checked before anything is written: the kubeconfig is not either.
      expect(existsSync(join(home.dir, 'kubeconfig'))).toBe(false);
    }
    const missing = setup(EXISTING);
    const notFound = await missing.run('--merge', '--kuberc', '--command', 'not-installed-anywhere');
    expect(notFound.code).toBe(2);
    expect(notFound.stderr).toBe(
      `${PREFIX}--kuberc: not-installed-anywhere is not on the PATH, so kubectl's allowlist cannot name it; install it, or give --command <absolute path>\n`,
    );
    expect(readFileSync(missing.kuberc, 'utf8')).toBe(EXISTING);
    expect(existsSync(join(missing.dir, 'kubeconfig'))).toBe(false);
    const alone = await setup(EXISTING).run('--kuberc');
    expect({ code: alone.code, stderr: alone.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}--kuberc allows the plugin of the kubeconfig --merge writes: add --merge\n`,
    });
  });

  it('bounds the work on a growing kuberc, and refuses a link planted by another user: exit 2, one line, the file untouched', async () => {
    for (const aliases of [10, 1_000, 100_000]) {
      const kuberc = `apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: Allowlist\naliases:\n${'- {name: a, command: get}\n'.repeat(aliases)}`;
      const home = setup(kuberc);
      const result = await home.run('--merge', '--kuberc');
      if (aliases === 10) {
        expect(result.code).toBe(0);
        continue;
      }
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        aliases === 1_000 ? /is too large to change: more than 10000 YAML tokens\n$/ : /larger than 1 MiB/,
      );
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(readFileSync(home.kuberc, 'utf8')).toBe(kuberc);
    }
    if (process.getuid?.() !== 0) return; // only root can make a link another user owns
    const home = setup(undefined);
    writeFileSync(join(home.dir, 'elsewhere'), EXISTING);
    symlinkSync(join(home.dir, 'elsewhere'), home.kuberc);
    lchownSync(home.kuberc, 4321, 4321);
    const result = await home.run('--merge', '--kuberc');
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}${home.kuberc} is a symbolic link owned by uid 4321, not by you; refusing to write through it\n`,
    });
    expect(readFileSync(join(home.dir, 'elsewhere'), 'utf8')).toBe(EXISTING);
  });

  it('the schema check can fail: an unknown field, a policy kubectl does not know, an empty entry', () => {
    expect(
      kubercProblems(
        'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: Sometimes\ncredentialPluginAllowlist:\n- {}\n- path: /x\n',
      ),
    ).toEqual([
      '$.credentialPluginPolicy: not one of , AllowAll, DenyAll, Allowlist',
      '$.credentialPluginAllowlist[1].path: unknown field',
      '$.credentialPluginAllowlist: set without the Allowlist policy',
      '$.credentialPluginAllowlist[0]: no field set',
      '$.credentialPluginAllowlist[1]: no field set',
    ]);
  });

  it('with KUBERC unset, changes ~/.kube/kuberc, the file kubectl reads then', async () => {
    const home = setup(undefined);
    mkdirSync(join(home.dir, '.kube'));
    const kuberc = join(home.dir, '.kube', 'kuberc');
    writeFileSync(kuberc, EXISTING);
    const env = { PATH: `${join(home.dir, 'bin')}:/usr/bin:/bin`, KUBECONFIG: join(home.dir, 'kubeconfig') };
    const result = await runInProcess(
      [
        'kubeconfig',
        '--server',
        'https://k8s.example.com:6443',
        '--config',
        CONFIG,
        '--name',
        'prod',
        '--merge',
        '--kuberc',
      ],
      { env, homedir: home.dir },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`${PREFIX}wrote ${home.plugin} to credentialPluginAllowlist in ${kuberc}\n`);
    expect(YAML.parse(readFileSync(kuberc, 'utf8')).credentialPluginAllowlist).toEqual([
      { name: '/usr/lib/google-cloud-sdk/bin/gke-gcloud-auth-plugin' },
      { name: home.plugin },
    ]);
  });

  it('a kuberc it cannot replace (the rename fails): exit 2, one line, the file as it was, no temporary file left', async () => {
    const home = setup(EXISTING);
    const env = {
      PATH: `${join(home.dir, 'bin')}:/usr/bin:/bin`,
      KUBERC: home.kuberc,
      KUBECONFIG: join(home.dir, 'kubeconfig'),
    };
    // A read-only file system, as root meets it (permissions would not stop root): the kuberc's rename fails.
    const readOnly = (real: CacheFs): CacheFs => ({
      ...real,
      renameSync: (from: string, to: string) => {
        if (to === home.kuberc) throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
        real.renameSync(from, to);
      },
    });
    const result = await runInProcess(
      [
        'kubeconfig',
        '--server',
        'https://k8s.example.com:6443',
        '--config',
        CONFIG,
        '--name',
        'prod',
        '--merge',
        '--kuberc',
      ],
      { env, fs: readOnly },
    );
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toBe(`${PREFIX}cannot write ${home.kuberc}: read-only file system\n`);
    expect(readFileSync(home.kuberc, 'utf8')).toBe(EXISTING);
    expect(readdirSync(home.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
