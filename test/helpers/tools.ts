// Tools npm cannot install (kubectl, zsh, fish): found through an env variable, then their usual
// places. A suite that needs one that is absent is skipped with one line that names the tool and
// how to enable it; under CI=true the absence fails the run instead (.ci/run provides them all).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe } from 'vitest';

export interface Tool {
  name: string;
  /** The executable, or undefined when it is not here. */
  path: string | undefined;
  /** How to make it available, for the skip line. */
  enable: string;
  /** Why CI may lack it too (no Debian package): then its suites skip under CI=true as well. */
  optional?: string;
  /** What the skip line says when it is absent; "not found" unless given. */
  absent?: string;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `env` names the tool's path; else the first executable of `candidates` (names are looked up on the PATH). */
function findTool(name: string, env: string, candidates: string[], enable: string): Tool {
  const given = process.env[env];
  if (given)
    return {
      name,
      path: executable(given) ? given : undefined,
      enable: `${env}=${given} is not executable; ${enable}`,
    };
  for (const candidate of candidates) {
    if (candidate.includes('/')) {
      if (executable(candidate)) return { name, path: candidate, enable };
    } else {
      for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
        if (dir && executable(join(dir, candidate))) return { name, path: join(dir, candidate), enable };
      }
    }
  }
  return { name, path: undefined, enable };
}

/** The path of a tool a test needs; throws when absent (use describeWith to skip instead). */
export function toolPath(tool: Tool): string {
  if (!tool.path) throw new Error(`${tool.name} not found: ${tool.enable}`);
  return tool.path;
}

const reported = new Set<string>();

/**
 * `describe` when every tool is here; otherwise the suite is skipped with one line on stderr naming
 * what is missing, or, under CI=true, fails.
 */
export function describeWith(...tools: Tool[]): typeof describe | typeof describe.skip {
  const missing = tools.filter((tool) => !tool.path);
  if (missing.length === 0) return describe;
  const line = missing.map((tool) => `${tool.name} ${tool.absent ?? 'not found'} (${tool.enable})`).join('; ');
  if (process.env['CI'] === 'true' && missing.some((tool) => !tool.optional))
    throw new Error(`CI=true requires every tool: ${line}`);
  if (!reported.has(line)) {
    reported.add(line);
    process.stderr.write(`skipped: ${line}\n`);
  }
  return describe.skip;
}

// KUBECTL_1_33 / KUBECTL_1_27, else the versioned binaries of the Google Cloud SDK (this machine's kind).
export const KUBECTL_1_33 = findTool(
  'kubectl 1.33',
  'KUBECTL_1_33',
  ['/usr/lib/google-cloud-sdk/bin/kubectl.1.33'],
  'set KUBECTL_1_33 to a kubectl 1.33 binary; not /usr/bin/kubectl of the Google Cloud SDK, a dispatcher that runs exec plugins twice',
);
export const KUBECTL_1_27 = findTool(
  'kubectl 1.27',
  'KUBECTL_1_27',
  ['/usr/lib/google-cloud-sdk/bin/kubectl.1.27'],
  'set KUBECTL_1_27 to a kubectl 1.27 binary (the last one that sends v1beta1 by default)',
);
export const ZSH = findTool('zsh', 'ZSH_BIN', ['zsh'], 'apt-get install zsh, or set ZSH_BIN');
export const FISH = findTool('fish', 'FISH_BIN', ['fish'], 'apt-get install fish, or set FISH_BIN');
export const NODE_22 = findTool(
  'Node 22',
  'NODE_22',
  [],
  'npm i --prefix <dir> node@22, then set NODE_22=<dir>/node_modules/.bin/node (.ci/run does)',
);
export const QEMU_AARCH64 = findTool(
  'qemu-aarch64-static',
  'QEMU_AARCH64',
  ['qemu-aarch64-static'],
  'apt-get install qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross',
);
export const PWSH = {
  ...findTool('pwsh', 'PWSH_BIN', ['pwsh'], 'install PowerShell 7, or set PWSH_BIN'),
  optional:
    "Debian has no PowerShell package; test/cli/completion.process.test.ts checks the script's content without it",
};
// The daemonless image build (test/release/): buildah with vfs storage and chroot isolation, and a
// debian:12-slim made by debootstrap from Debian's mirror (no container registry is reachable).
export const BUILDAH = findTool(
  'buildah',
  'BUILDAH',
  ['buildah'],
  'apt-get install buildah debootstrap, or set BUILDAH',
);
export const DEBOOTSTRAP = findTool(
  'debootstrap',
  'DEBOOTSTRAP',
  ['debootstrap', '/usr/sbin/debootstrap'],
  'apt-get install debootstrap, or set DEBOOTSTRAP',
);
/** Not a tool but a condition: debootstrap and chroot isolation need root. */
export const AS_ROOT: Tool = {
  name: 'the image build',
  path: process.getuid?.() === 0 ? '/' : undefined,
  absent: 'needs root',
  enable: 'run the tests as root',
};
// The win-x64 binary runs under Wine 10 in a Debian 13 root (Debian 12's Wine 8 cannot run Node 24):
// WINE_ROOT names a root that .ci/wine-root made (.ci/run makes one outside the checkout and keeps it).
const wineRoot = process.env['WINE_ROOT'];
export const WINE_ROOT: Tool = {
  name: 'Wine (a Debian 13 root)',
  path: wineRoot && executable(join(wineRoot, 'usr/lib/wine/wine64')) ? wineRoot : undefined,
  absent: wineRoot ? `not found in WINE_ROOT=${wineRoot}` : 'not found (WINE_ROOT is not set)',
  enable: 'as root: .ci/wine-root <dir>, then set WINE_ROOT=<dir>',
};
export const SETPRIV = findTool(
  'setpriv',
  'SETPRIV_BIN',
  ['setpriv'],
  'apt-get install util-linux, or set SETPRIV_BIN',
);
// Go's linker ad hoc signs every darwin/arm64 binary it writes: the independent implementation our
// Mach-O signer is held against (test/release/macho-sign.test.ts).
export const GO = findTool(
  'golang-go',
  'GO_BIN',
  ['go', '/usr/lib/go/bin/go'],
  'apt-get install golang-go, or set GO_BIN',
);
// osslsigncode reads a PE's Authenticode signature (or its absence) as Windows tools do.
export const OSSLSIGNCODE = findTool(
  'osslsigncode',
  'OSSLSIGNCODE',
  ['osslsigncode'],
  'apt-get install osslsigncode, or set OSSLSIGNCODE',
);
/** util-linux `script`: runs a command under a pseudo-terminal (a person's kubectl, interactive). */
export const SCRIPT = findTool(
  'script (util-linux)',
  'SCRIPT_BIN',
  ['/usr/bin/script', 'script'],
  'apt-get install bsdutils (util-linux script), or set SCRIPT_BIN',
);
export const CHROMIUM = findTool(
  'chromium',
  'CHROMIUM',
  ['/usr/bin/chromium'],
  'apt-get install chromium (Debian), or set CHROMIUM',
);
// Debian's ruby runs the Homebrew formula's `test do` against the real binary (test/release/formula.test.ts).
export const RUBY = findTool('ruby', 'RUBY', ['ruby'], 'apt-get install ruby, or set RUBY');
