// argocd-secret --cache puts the cache on the memory-backed emptyDir examples/argocd mounts, and the
// cache's trust rules must accept that directory as kubelet makes it: kubelet creates the volume
// directory with mode 0777 and, for medium: Memory, mounts a tmpfs on it with only a size option, so
// its root is root's with tmpfs's default mode 1777 (sticky, like /tmp); with an fsGroup it then
// gives the group to fsGroup and sets setgid (pkg/volume/emptydir, SetVolumeOwnership). Argo CD runs
// as uid 999 on a read-only root file system. Here the same: a real tmpfs where this test may mount
// one, the plugin run as uid 999 through setpriv with a HOME it cannot write. What uid 999 runs is a
// copy placed where that user can reach it: the checkout may sit under a directory only its owner
// may enter (a home directory, a `mktemp -d`), and Argo CD's user could not run the plugin from there.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN_SCRIPT, ROOT, baseEnv, cliCommand, leaks, type CliResult } from '../helpers/cli.js';
import { describeWith, SETPRIV, toolPath, type Tool } from '../helpers/tools.js';
import { pki, tokenApis } from './support.js';

const ARGOCD_UID = 999;
const ROOT_USER: Tool = {
  name: 'root',
  path: process.getuid?.() === 0 ? 'root' : undefined,
  enable: 'run the tests as root, as CI does: the test gives directories to uid 999 as kubelet and Argo CD do',
  absent: 'needed',
};

const startApi = tokenApis();
const base = mkdtempSync(join(tmpdir(), 'webapi-credential-emptydir-'));
const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted) execFileSync('umount', [dir]);
  rmSync(base, { recursive: true, force: true });
});

/**
 * An emptyDir with medium: Memory as kubelet makes it: the directory (0777), a tmpfs mounted on it
 * with a size only, then fsGroup's group and setgid when the pod has one. Where this test may not
 * mount (no CAP_SYS_ADMIN), the directory gets the mode the tmpfs root would have.
 */
function memoryEmptyDir(name: string, fsGroup?: number, sizeBytes = 16 * 1024 * 1024): string {
  const dir = join(base, name);
  mkdirSync(dir, { mode: 0o777 });
  chmodSync(dir, 0o777);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { stdio: 'ignore' });
    mounted.push(dir);
  } catch {
    chmodSync(dir, 0o1777);
  }
  if (fsGroup !== undefined) {
    chownSync(dir, 0, fsGroup);
    chmodSync(dir, (statSync(dir).mode & 0o7777) | 0o2770);
  }
  return dir;
}

/**
 * The command that runs the plugin, copied into `dir` (0755 directories, files others may read and
 * run, whatever the umask of the checkout was): the single binary alone, or the pinned Node with the
 * bin script and the bundle it imports (dist/*.mjs; the bundle needs nothing of node_modules).
 * Copied, not linked: a link would share the checkout's file modes, and chmod would change them.
 */
function placeCommand(dir: string): { command: string[]; files: string[] } {
  const files: string[] = [];
  const directory = (path: string): void => {
    if (statSync(path, { throwIfNoEntry: false })) return;
    directory(dirname(path));
    mkdirSync(path);
    chmodSync(path, 0o755);
  };
  const place = (from: string, to: string, mode: number) => {
    directory(dirname(to));
    copyFileSync(from, to, constants.COPYFILE_FICLONE);
    chmodSync(to, mode);
    files.push(to);
    return to;
  };
  directory(dir);
  const [executable, ...lead] = cliCommand();
  const command = [place(executable!, join(dir, 'run', basename(executable!)), 0o755)];
  for (const arg of lead) {
    if (arg !== BIN_SCRIPT)
      throw new Error(`emptydir.test.ts knows how to place the bin script or the single binary, not ${arg}`);
    command.push(place(BIN_SCRIPT, join(dir, relative(ROOT, BIN_SCRIPT)), 0o644));
    const dist = join(ROOT, 'dist');
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.mjs')))
      place(join(dist, file), join(dir, 'dist', file), 0o644);
  }
  return { command, files };
}

/** Writes `path` until the file system has no page left (ENOSPC), as a full emptyDir is. */
function fillUp(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

let placed: { command: string[]; files: string[] };

/** get-token as Argo CD runs it: uid 999 (and the pod's fsGroup), HOME not writable. */
function asArgoCd(config: string, cacheDir: string, groups: number[] = []): Promise<CliResult> {
  const [command, ...lead] = placed.command;
  const args = [
    `--reuid=${ARGOCD_UID}`,
    `--regid=${ARGOCD_UID}`,
    groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups',
    command!,
    ...lead,
  ];
  const child = spawn(
    toolPath(SETPRIV),
    [...args, '--config-inline', config, '--cache', '--cache-dir', cacheDir, '--verbose'],
    {
      env: baseEnv({ HOME: readOnlyHome, CLIENT_SECRET: 'argocd-secret-value' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// The read-only root file system: nothing the plugin may write but the cache directory.
const readOnlyHome = join(base, 'home');
mkdirSync(readOnlyHome, { mode: 0o755 });
chmodSync(base, 0o755);

describeWith(ROOT_USER, SETPRIV)('the cache on a memory emptyDir, as kubelet mounts it for Argo CD', () => {
  beforeAll(() => {
    placed = placeCommand(join(base, 'program'));
  });

  it('runs, as uid 999, only a copy outside the checkout that every user can reach (the checkout may sit under a 0700 directory)', () => {
    expect(placed.files.length).toBeGreaterThan(0);
    for (const file of placed.command) expect(placed.files).toContain(file);
    for (const file of placed.files) {
      expect(relative(ROOT, file).startsWith('..'), `${file} is in the checkout ${ROOT}`).toBe(true);
      expect(statSync(file).mode & 0o004, `${file} is not readable by others`).toBe(0o004);
      for (let parent = dirname(file); parent !== dirname(parent); parent = dirname(parent)) {
        expect(statSync(parent).mode & 0o001, `${parent} does not let others in`).toBe(0o001);
      }
    }
  });

  const config = async () => {
    const api = await startApi();
    return {
      api,
      config: JSON.stringify({
        webAPIProviderConfig: {
          method: 'POST',
          url: `${api.url}/token`,
          tokenPath: '$.access_token',
          expiresInPath: '$.expires_in',
          headers: { Authorization: 'Bearer {{ env.CLIENT_SECRET }}' },
          tls: { caData: pki.ca.cert },
        },
      }),
    };
  };

  it.each([
    ['without fsGroup', undefined, 0o1777, 0],
    ['with fsGroup 999', 999, 0o3777, 999],
  ])('accepts the directory the plugin makes in it (%s): one request, then hits', async (_name, fsGroup, mode, gid) => {
    const volume = memoryEmptyDir(`memory-${fsGroup ?? 'none'}`, fsGroup);
    expect({ mode: statSync(volume).mode & 0o7777, uid: statSync(volume).uid, gid: statSync(volume).gid }).toEqual({
      mode,
      uid: 0,
      gid,
    });
    const cacheDir = join(volume, 'credentials');
    const { api, config: text } = await config();

    const first = await asArgoCd(text, cacheDir, fsGroup === undefined ? [] : [fsGroup]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('webapi-credential: cache: stored');
    // Under a setgid volume the directory inherits setgid and the group: no permission for that group all the same.
    expect({ mode: statSync(cacheDir).mode & 0o777, uid: statSync(cacheDir).uid }).toEqual({
      mode: 0o700,
      uid: ARGOCD_UID,
    });
    const second = await asArgoCd(text, cacheDir, fsGroup === undefined ? [] : [fsGroup]);
    expect(second.stderr).toBe(`webapi-credential: cache: hit (fast path, ${cacheDir})\n`);
    expect(second.stdout).toBe(first.stdout);
    expect(api.requests).toHaveLength(1);
  });

  // A full memory emptyDir (the tmpfs's size reached): creating a file still works (an inode, no
  // page), writing a byte to it fails with ENOSPC. So the lock is created and its pid refused; left
  // there, every next caller would wait on a lock nobody can judge (1 s and more each, issue 27).
  // Every caller must get its credential, leave no lock, and not wait on one another.
  it('serves every caller from a full emptyDir: no lock left behind, no added wait', async ({ skip }) => {
    const callers = 4;
    const volume = memoryEmptyDir('full', undefined, 1024 * 1024);
    if (!mounted.includes(volume)) {
      if (process.env['CI'] === 'true') throw new Error('CI=true: this test needs to mount a tmpfs (CAP_SYS_ADMIN)');
      skip('cannot mount a tmpfs here (no CAP_SYS_ADMIN): a full file system cannot be made');
    }
    const cacheDir = join(volume, 'credentials');
    const { api, config: text } = await config();
    const round = async () => ({
      results: await Promise.all(Array.from({ length: callers }, () => asArgoCd(text, cacheDir))),
    });

    // Cold callers on the volume while it has room: one fetch, the others wait on its lock and hit.
    const roomy = await round();
    for (const result of roomy.results) expect(result.code, result.stderr).toBe(0);
    expect(api.requests).toHaveLength(1);
    // The credential goes (as if it expired), the directory and its key stay; then the volume fills up.
    for (const name of readdirSync(cacheDir)) if (/\.(json|ref)$/.test(name)) unlinkSync(join(cacheDir, name));
    const kept = readdirSync(cacheDir).sort();
    fillUp(join(volume, 'filler'));
    const probe = join(volume, 'probe');
    writeFileSync(probe, '');
    expect(() => writeFileSync(probe, 'x')).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    unlinkSync(probe);

    const full = await round();
    for (const result of full.results) {
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).status.token).toMatch(/^token-\d+$/);
      // Each found no lock of another to wait on, but made (and removed) its own: a lock left behind
      // would be waited on to the caller's patience instead, and said so. (Counted, not timed.)
      expect(result.stderr).toContain('webapi-credential: cache: cannot lock (ENOSPC); fetching without the lock\n');
      expect(result.stderr).not.toContain('holds the key too long');
      expect(leaks(result, ['argocd-secret-value'])).toEqual([]);
    }
    // Each fetched on its own (nobody can hold a lock on a full file system), and left nothing behind.
    expect(api.requests).toHaveLength(1 + callers);
    expect(readdirSync(cacheDir).sort()).toEqual(kept);
  });

  it('refuses a disk-backed emptyDir (0777, not sticky): the credential still comes, without the cache', async () => {
    const volume = join(base, 'disk');
    mkdirSync(volume);
    chmodSync(volume, 0o777);
    const cacheDir = join(volume, 'credentials');
    const { api, config: text } = await config();
    for (let i = 0; i < 2; i++) {
      const result = await asArgoCd(text, cacheDir);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        `webapi-credential: cache: off for this call: ${volume} above it is writable by others\n`,
      );
    }
    expect(api.requests).toHaveLength(2);
    expect(() => statSync(cacheDir)).toThrow(/ENOENT/);
  });
});
