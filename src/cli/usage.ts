// A command line commander refused, said in one line that ends with where to look (--help), exit 2;
// help and --version, which commander ends by throwing too, end well.
import type { Command, CommanderError } from 'commander';
import { UsageError, type ExitCode } from '../errors.js';
import { closest } from '../config/shape.js';

export function usageFailure(
  error: CommanderError,
  argv: string[],
  program: Command,
  line: (text: string) => void,
): ExitCode {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help')
    return 0;
  // With get-token the default command, a mistyped command reaches it as an argument.
  const first = argv[0];
  if (
    error.code === 'commander.excessArguments' &&
    first !== undefined &&
    !first.startsWith('-') &&
    !program.commands.some((command) => command.name() === first)
  ) {
    const names = program.commands
      .filter((command) => !(command as unknown as { _hidden?: boolean })._hidden)
      .map((command) => command.name())
      .filter((name) => name !== 'help');
    const guess = closest(first, names);
    line(
      `unknown command ${JSON.stringify(first)}; ${guess ? `did you mean ${guess}?` : `the commands are ${names.join(', ')}`} (see --help)`,
    );
    return 2;
  }
  // `webapi-credential --config c.yaml login` (options first, as kubectl's plugins are often
  // written): the command reached get-token as an argument. Said as such, not as "too many arguments".
  const misplaced =
    error.code === 'commander.excessArguments'
      ? argv.find((word, i) => i > 0 && word !== 'help' && program.commands.some((command) => command.name() === word))
      : undefined;
  if (misplaced !== undefined) {
    line(
      `${JSON.stringify(misplaced)} is a command: write it first and its options after it (webapi-credential ${misplaced} --config …) (see --help)`,
    );
    return 2;
  }
  // Commander puts its "Did you mean" suggestion on a second line: keep the message on one.
  line(`${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')} (see --help)`);
  return 2;
}

/** A command that takes subcommands, given none or one it does not have: what it takes. */
export function subcommandMissing(command: Command, name: string | undefined): UsageError {
  const names = command.commands.map((sub) => sub.name()).filter((sub) => sub !== 'help');
  const see = `(see ${command.name()} --help)`;
  return name === undefined
    ? new UsageError('SUBCOMMAND_MISSING', `${command.name()} needs a subcommand: ${names.join(', ')} ${see}`)
    : new UsageError(
        'SUBCOMMAND_UNKNOWN',
        `${command.name()} has no subcommand ${JSON.stringify(name)}; it takes ${names.join(', ')} ${see}`,
      );
}
