// What the CLI needs from the outside world, in one type: main.ts builds the real ones, tests pass
// object literals. Its own module so that the fast path, the plain get-token form and the commander
// program share it without importing one another.
import type { Deps } from '../use-case/deps.js';
import type { DoctorProbes } from '../use-case/doctor/deps.js';

/** With doctor's probes of this machine and the cluster (isExecutable, sameProgram, whoAmI). */
export interface CliDeps extends Omit<Deps, 'trace' | 'warn'>, DoctorProbes {
  stderr: (text: string) => void;
  /** `--version`'s line: `webapi-credential 0.1.0 (node v24.11.0, linux-x64)`; `version` alone when absent. */
  versionLine?: string;
  /** The current directory: `kubeconfig` writes the config's absolute path. */
  cwd?: () => string;
}
