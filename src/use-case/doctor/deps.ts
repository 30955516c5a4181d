// What doctor takes: its flags, what it looks at on this machine and the cluster, and what the
// command line lends it (the reading of argv, the report's format), so that use-case/ never imports cli/.
import type { ExitCode } from '../../errors.js';
import type { CredentialStatus } from '../../credential/exec-credential.js';
import type { ClusterOptions, ClusterOutcome, ClusterTarget } from '../../request/cluster.js';
import type { GetTokenFlags } from '../deps.js';
import type { Stage } from './stage.js';

/** doctor: get-token's run (or the exec entry's), where to read it from, the report's format. */
export interface DoctorFlags {
  run: GetTokenFlags;
  kubeconfig?: string;
  context?: string;
  argocdSecret?: string;
  server?: string;
  caFile?: string;
  format: 'text' | 'json';
  verbose: boolean;
  /** --login: a login config logs in now, when a person is at this terminal. */
  login?: boolean;
}

/** What doctor looks at on this machine and the cluster; main.ts builds the real ones (cli/deps.ts). */
export interface DoctorProbes {
  /** Whether `path` is an executable regular file (as kubectl finds an exec command). */
  isExecutable?: (path: string) => boolean;
  /** Whether `path` is this program (the same file, or a copy of the single binary), and where this one is; nothing is run. */
  sameProgram?: (path: string) => { same: boolean; self: string };
  /** The cluster client (request/cluster.ts), loaded by main.ts when doctor asks. */
  whoAmI?: (target: ClusterTarget, credential: CredentialStatus, options: ClusterOptions) => Promise<ClusterOutcome>;
}

/** What the command line lends doctor: argv and the report's format are cli/'s (program.ts hands them in). */
export interface DoctorSystem extends DoctorProbes {
  /** An exec entry's args as get-token's flags, or undefined when they are not get-token options this version knows. */
  execArgs: (args: string[]) => GetTokenFlags | undefined;
  /** The report in `format` (cli/doctor-report.ts): its frame through `redactFrame`, what the stages found through `redact`. */
  report: (
    format: DoctorFlags['format'],
    stages: Stage[],
    exitCode: ExitCode,
    redaction: { redact: (text: string) => string; redactFrame: (text: string) => string },
  ) => string;
}
