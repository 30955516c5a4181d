// The default: the ExecCredential client-go reads, in the version it asked for.
import { formatExecCredential } from '../exec-credential.js';
import type { OutputFormat } from './format.js';

export const execCredential: OutputFormat = {
  describes: 'an ExecCredential',
  print: (status, apiVersion) => formatExecCredential(apiVersion, status),
};
