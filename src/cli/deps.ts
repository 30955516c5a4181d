// What the CLI needs from the outside world, in one type: main.ts builds the real ones, tests pass
// object literals. Its own module so that the fast path, the plain get-token form and the commander
// program share it without importing one another.
import type { Deps } from '../use-case/deps.js';
import type { ClusterOutcome, ClusterTarget } from '../request/cluster.js';
import type { CredentialStatus } from '../credential/exec-credential.js';

export interface CliDeps extends Omit<Deps, 'trace' | 'warn'> {
  stderr: (text: string) => void;
  /** The current directory: `kubeconfig` writes the config's absolute path. */
  cwd?: () => string;
  /** doctor: whether `path` is an executable regular file (as kubectl finds an exec command). */
  isExecutable?: (path: string) => boolean;
  /** doctor: whether `path` is this program (the same file, or a copy of the single binary), and where this one is; nothing is run. */
  sameProgram?: (path: string) => { same: boolean; self: string };
  /** doctor: the cluster client (request/cluster.ts), loaded by main.ts when doctor asks. */
  whoAmI?: (target: ClusterTarget, credential: CredentialStatus, options: { deadline: number; now: () => number }) => Promise<ClusterOutcome>;
}
