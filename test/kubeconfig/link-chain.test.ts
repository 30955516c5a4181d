// Issue 39.2: `kubeconfig --merge` (and `--kuberc`) checked the owner of the first link only. A link
// planted further down the chain (in /tmp, or any directory another user writes) redirected the write
// to another file of the user's, its mode changed to 0600, while the report named ~/.kube/config.
// Every link on the way is followed by hand now, each one's owner checked (the user's or root's, as
// for the cache directory), at most 40 of them, and the report names the file written.
import {
  chmodSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

const PREFIX = 'webapi-credential: ';
const ROOT_USER = process.getuid?.() === 0;
// Only root can give a link another owner: elsewhere these cases cannot be set up.
if (!ROOT_USER)
  process.stderr.write(
    "test/kubeconfig/link-chain.test.ts: the cases of another user's link skipped: they need root (lchown)\n",
  );

const OTHER = 4242;
const VICTIM = "not a kubeconfig: the user's other file, keep me\n";
const args = (file: string) => [
  'kubeconfig',
  '--server',
  'https://k8s.example.com',
  '--name',
  'prod',
  '--config-inline',
  'webAPIProviderConfig: {method: GET, url: "https://t.example.com", tokenPath: $.t}',
  '--merge',
  file,
];

/** A home with ~/.kube, a victim file of the user's, and a directory like /tmp (world-writable, sticky). */
function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-links-'));
  const kube = join(dir, '.kube');
  const shared = join(dir, 'tmp');
  mkdirSync(kube);
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  const victim = join(dir, 'victim');
  writeFileSync(victim, VICTIM, { mode: 0o644 });
  return { dir, kube, shared, victim, config: join(kube, 'config') };
}

/** A symbolic link at `path` to `target`, owned by `uid` (root's own when undefined). */
function link(target: string, path: string, uid?: number): string {
  symlinkSync(target, path);
  if (uid !== undefined) lchownSync(path, uid, uid);
  return path;
}

describe.runIf(ROOT_USER)('a kubeconfig reached through a chain of links', () => {
  it.each([
    ['a directory like /tmp', (home: ReturnType<typeof setup>) => join(home.shared, 'kubeconfig')],
    ['the same directory', (home: ReturnType<typeof setup>) => join(home.kube, 'second')],
  ])(
    "whose second link, in %s, is another user's: exit 2 naming that link, the file it points at untouched",
    async (_where, second) => {
      const home = setup();
      const planted = link(home.victim, second(home), OTHER);
      link(planted, home.config);
      const result = await runInProcess(args(home.config));
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `${PREFIX}${home.config} leads through ${planted}, a symbolic link owned by uid ${OTHER}, not by you; refusing to write through it: choose another file with --merge <file>\n`,
      });
      expect(readFileSync(home.victim, 'utf8')).toBe(VICTIM);
      expect(lstatSync(home.victim).mode & 0o777).toBe(0o644);
    },
  );

  it("whose link to a directory on the way is another user's: exit 2 naming it, nothing written there", async () => {
    const home = setup();
    // ~/.kube/config -> /tmp/kube/config, /tmp/kube -> the victim's directory (planted).
    const planted = link(home.dir, join(home.shared, 'kube'), OTHER);
    writeFileSync(join(home.dir, 'config'), VICTIM, { mode: 0o644 });
    link(join(planted, 'config'), home.config);
    const result = await runInProcess(args(home.config));
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}${home.config} leads through ${planted}, a symbolic link owned by uid ${OTHER}, not by you; refusing to write through it: choose another file with --merge <file>\n`,
    });
    expect(readFileSync(join(home.dir, 'config'), 'utf8')).toBe(VICTIM);
  });

  it("of the user's own links: the file at the end is written, and the report names it", async () => {
    const home = setup();
    const real = join(home.dir, 'dotfiles-kubeconfig');
    writeFileSync(real, 'apiVersion: v1\nkind: Config\n', { mode: 0o600 });
    const second = link(real, join(home.shared, 'kc'));
    link(second, home.config);
    const result = await runInProcess(args(home.config));
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: `${PREFIX}added cluster, user and context prod to ${real} (${home.config} is a link to it); kubectl --context prod uses them (or --use makes it current)\n`,
    });
    expect(readFileSync(real, 'utf8')).toContain('name: prod');
    expect(lstatSync(home.config).isSymbolicLink()).toBe(true);
    expect(lstatSync(second).isSymbolicLink()).toBe(true);
  });

  it('of links that go round: exit 2 after a bounded number of hops', async () => {
    const home = setup();
    link(join(home.kube, 'b'), join(home.kube, 'a'));
    link(join(home.kube, 'a'), join(home.kube, 'b'));
    link(join(home.kube, 'a'), home.config);
    const result = await runInProcess(args(home.config));
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}${home.config} leads through more than 40 symbolic links; refusing to write through it: choose another file with --merge <file>\n`,
    });
  });

  it("a kuberc whose second link is another user's is not written through either", async () => {
    const home = setup();
    const bin = join(home.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'webapi-credential'), '#!/bin/sh\n', { mode: 0o755 });
    const allowlist =
      'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: Allowlist\ncredentialPluginAllowlist:\n- name: /usr/bin/kubelogin\n';
    writeFileSync(home.victim, allowlist);
    const planted = link(home.victim, join(home.shared, 'kuberc'), OTHER);
    const kuberc = link(planted, join(home.kube, 'kuberc'));
    const env = { PATH: `${bin}:/usr/bin:/bin`, KUBERC: kuberc };
    const result = await runInProcess([...args(home.config), '--kuberc'], { env });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}${kuberc} leads through ${planted}, a symbolic link owned by uid ${OTHER}, not by you; refusing to write through it\n`,
    });
    expect(readFileSync(home.victim, 'utf8')).toBe(allowlist);
  });
});
