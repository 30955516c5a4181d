// Shell completion scripts for bash, zsh, fish and PowerShell, written from the completion model
// (spec.ts) that cli/completion.ts reads from commander's command and option tree, so that a new
// command or option completes without anyone editing a script. One file per shell; this one picks.
import type { CommandSpec } from './spec.js';
import { bash } from './bash.js';
import { fish } from './fish.js';
import { powershell } from './powershell.js';
import { zsh } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(shell: Shell, root: CommandSpec, name: string): string {
  switch (shell) {
    case 'bash':
      return bash(root, name);
    case 'zsh':
      return zsh(root, name);
    case 'fish':
      return fish(root, name);
    case 'powershell':
      return powershell(root, name);
  }
}
