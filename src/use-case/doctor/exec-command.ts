// The exec entry doctor reads: its command found as kubectl would find it and told to be this
// program by the file alone (doctor runs no program a kubeconfig names), and its args shown by
// their option names.
import { delimiter, isAbsolute, join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { Deps } from '../deps.js';
import type { ExecSource } from '../manifest/manifest-read.js';
import type { DoctorProbes } from './deps.js';

export interface Found {
  summary: string;
  path?: string;
  notes: string[];
}

/** The command found as kubectl finds it (client-go: a path with a slash is the kubeconfig's; else the PATH), and that it is this program. */
export function checkCommand(source: ExecSource, file: string, deps: Deps, system: DoctorProbes): Found {
  const { command } = source;
  const isExecutable = system.isExecutable ?? (() => false);
  let path: string | undefined;
  if (command.includes('/')) {
    const candidate = isAbsolute(command) || source.baseDir === undefined ? command : join(source.baseDir, command);
    if (isExecutable(candidate)) path = candidate;
    else if (source.kind === 'argocd-secret')
      return {
        summary: command,
        notes: [
          `${command} is a path in the Argo CD containers; it is not on this machine, so its version is not checked`,
        ],
      };
    else
      throw new UsageError(
        'COMMAND_NOT_FOUND',
        `${source.origin}: ${candidate} does not exist or is not executable: install webapi-credential there, or set exec.command to where it is`,
      );
  } else {
    const dirs = (deps.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '');
    path = dirs.map((dir) => join(dir, command)).find((candidate) => isExecutable(candidate));
    if (path === undefined) {
      throw new UsageError(
        'COMMAND_NOT_FOUND',
        `${source.origin}: ${command} is not on the PATH: install it in a directory of the PATH, or set exec.command to its absolute path`,
      );
    }
  }
  // Whether it is this program, told by the file: running it to ask (`--version`, with the entry's
  // env) would run whatever a kubeconfig someone else wrote names, LD_PRELOAD and all.
  const program = system.sameProgram?.(path) ?? { same: false, self: '(unknown)' };
  if (!program.same) {
    if (source.kind === 'argocd-secret')
      return {
        summary: command,
        notes: [
          `${command} is a path in the Argo CD containers; the one on this machine is not this program, so it is not checked`,
        ],
      };
    throw new UsageError(
      'COMMAND_OTHER',
      `${source.origin}: ${path} is not this program (${program.self}); doctor runs no program a kubeconfig names: if it is webapi-credential, run its own doctor (${path} doctor --kubeconfig ${file})`,
    );
  }
  const version = deps.version;
  return { summary: `${path} (version ${version})`, path, notes: [] };
}

/** The option names of the exec entry's args (their values may be long or personal: not shown). */
export function optionNames(args: string[]): string {
  const names = args.filter((arg) => arg.startsWith('-')).map((arg) => arg.split('=')[0]!);
  return names.length > 0 ? names.join(' ') : '(none)';
}
