// The completion model of the program (src/completion/spec.ts), read from commander's command and
// option tree, so that a new command or option completes without anyone editing a script; the
// scripts themselves are written by src/completion/, one file per shell.
import type { Command } from 'commander';
import { flagNamed } from './flags.js';
import type { CommandSpec, OptionSpec } from '../completion/spec.js';

/** The completion model of `program`. The default command's options complete at the root too. */
export function describeProgram(program: Command): CommandSpec {
  return describe(program, []);
}

function describe(command: Command, path: string[]): CommandSpec {
  const options: OptionSpec[] = command.options
    .filter((o) => !o.hidden)
    .map((o) => {
      const placeholder = /[<[](\w+)[>\]]/.exec(o.flags)?.[1] ?? '';
      // Values the use case checks itself (--api-version) are suggested all the same.
      const choices = o.argChoices ?? (o.long ? flagNamed(o.long)?.completions : undefined);
      const value: OptionSpec['value'] = !(o.required || o.optional)
        ? 'none'
        : choices
          ? 'choice'
          : o.long === '--context'
            ? 'context'
            : placeholder === 'dir'
              ? 'dir'
              : placeholder === 'path' || placeholder === 'file'
                ? 'file'
                : 'text';
      return {
        ...(o.short ? { short: o.short } : {}),
        ...(o.long ? { long: o.long } : {}),
        description: o.description,
        value,
        ...(choices && value === 'choice' ? { choices: [...choices] } : {}),
      };
    });
  options.push({ short: '-h', long: '--help', description: 'display help', value: 'none' });
  // Hidden commands are the scripts' own (`__complete-contexts`), not words to offer.
  const subcommands = command.commands
    .filter((c) => !(c as unknown as { _hidden?: boolean })._hidden)
    .map((c) => describe(c, [...path, c.name()]));
  const fallback = (command as unknown as { _defaultCommandName?: string })._defaultCommandName;
  const byDefault = subcommands.find((s) => s.path.at(-1) === fallback);
  if (byDefault) {
    const own = new Set(options.map((o) => o.long));
    options.push(...byDefault.options.filter((o) => !own.has(o.long)));
  }
  return {
    path,
    description: command.description(),
    options,
    argumentChoices: [...(command.registeredArguments[0]?.argChoices ?? [])],
    subcommands,
  };
}
