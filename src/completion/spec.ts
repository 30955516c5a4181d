// The completion model: what a shell completes at each command (its options, the kind of value each
// takes, its subcommands and argument choices), read from the program by cli/completion.ts and
// written as a script for each shell by the files beside this one. Knows no commander and no shell.
export interface OptionSpec {
  short?: string;
  long?: string;
  description: string;
  /** What the value is: none (a switch), a file, a directory, one of `choices`, a kubeconfig context, or free text. */
  value: 'none' | 'file' | 'dir' | 'choice' | 'context' | 'text';
  choices?: string[];
}

export interface CommandSpec {
  /** Words from the root, e.g. ['cache', 'clear']; [] for the root. */
  path: string[];
  description: string;
  options: OptionSpec[];
  /** Choices of the first positional argument, if it has any. */
  argumentChoices: string[];
  subcommands: CommandSpec[];
}

export function all(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(all)];
}

export const flags = (o: OptionSpec) => [o.short, o.long].filter((f): f is string => f !== undefined);
export const valued = (root: CommandSpec) => [
  ...new Set(all(root).flatMap((c) => c.options.filter((o) => o.value !== 'none').flatMap(flags))),
];
export const paths = (root: CommandSpec) =>
  all(root)
    .slice(1)
    .map((c) => c.path.join(' '));
export const fn = (name: string) => `_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
export const single = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
