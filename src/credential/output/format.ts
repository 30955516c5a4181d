// What an output format is (--output): one file each beside this one, registered in index.ts.
import type { ProviderConfig } from '../../config/schema.js';
import type { CredentialStatus } from '../exec-credential.js';

export interface OutputFormat {
  /** What it prints, for --help: "what to print: <this>, or <that>". */
  describes: string;
  /**
   * Why this config's credential cannot be printed so (exit 2, before anything is sent), or
   * undefined when it can.
   */
  refuses?(config: Pick<ProviderConfig, 'paths'>): string | undefined;
  /**
   * The text for stdout, or undefined when this credential cannot be printed so (a cached entry
   * the fast path leaves to the full path, which refuses it in words).
   */
  print(status: CredentialStatus, apiVersion: string): string | undefined;
}
