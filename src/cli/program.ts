// argv -> options -> use case, and the single catch that turns any error into one line on stderr
// and an exit code. Never calls process.exit: run() returns the code (citty is the counter-example).
import { Argument, Command, CommanderError, Option } from 'commander';
import type { ExitCode } from '../errors.js';
import { reporter } from './report.js';
import type { CliDeps } from './deps.js';
import { GET_TOKEN_FLAGS, flagSyntax, getTokenFlags, requestFlags, type Flag, type ParsedFlags } from './flags.js';
import type { Deps } from '../use-case/deps.js';
import { getToken } from '../use-case/get-token.js';
import { render, validate } from '../use-case/inspect.js';
import { clearCache } from '../use-case/clear-cache.js';
import { SHELLS, completionScript, describeProgram, type Shell } from './completion.js';
import { addExamples } from './help.js';
import { ARGOCD_COMMAND, ARGOCD_NAMESPACE, INSTALLED_NAME } from './manifests.js';
import { closest } from '../config/shape.js';
import { argoCdSecret, kubeconfig, type ArgoCdSecretFlags, type KubeconfigFlags } from './generators.js';

export async function run(argv: string[], deps: CliDeps): Promise<ExitCode> {
  let verbose = argv.includes('-v') || argv.includes('--verbose');
  const { line, failure, useCaseDeps: depsFor } = reporter(deps);
  const useCaseDeps = (options: ParsedFlags): Deps => {
    verbose = options.verbose === true;
    return depsFor(verbose);
  };

  const program = new Command('webapi-credential')
    .description('Kubernetes exec credential plugin: call a token API, take a JSON field, print an ExecCredential.')
    .version(deps.version, '--version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => deps.stdout(s), writeErr: () => {} })
    .showSuggestionAfterError(true);

  // validate, render and the generators take the request flags of get-token's table.
  const requestOptions = (command: Command) => addFlags(command, GET_TOKEN_FLAGS.filter((flag) => flag.request));

  addFlags(
    program
      .command('get-token', { isDefault: true })
      .description('print an ExecCredential (the default command)'),
    GET_TOKEN_FLAGS,
  ).action(async (options: ParsedFlags) => {
    await getToken(getTokenFlags(options), useCaseDeps(options));
  });

  requestOptions(program.command('validate').description('check the config, its templates and the env they read; no network')).action(
    async (options: ParsedFlags) => validate(requestFlags(options), useCaseDeps(options)),
  );
  requestOptions(program.command('render').description('print the request it would send, secrets redacted; no network')).action(
    async (options: ParsedFlags) => render(requestFlags(options), useCaseDeps(options)),
  );

  const cacheClear = program
    .command('cache')
    .description('manage the on-disk token cache')
    .command('clear')
    .description('remove every cached credential');
  addFlags(cacheClear, GET_TOKEN_FLAGS.filter((flag) => flag.key === 'cacheDir' || flag.key === 'verbose'))
    .action(async (options: ParsedFlags) => clearCache(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}, useCaseDeps(options)));

  // Manifests that run this binary: each validates the config as the plugin will run it first.
  interface ManifestOptions extends ParsedFlags {
    server: string;
    name?: string;
    caFile?: string;
    embedConfig?: boolean;
    namespace: string;
    command: string;
  }
  const manifestOptions = (command: Command, apiVersion: string) => {
    requestOptions(command)
      .requiredOption('--server <url>', 'https:// URL of the Kubernetes API server')
      .option('--ca-file <path>', 'PEM CA bundle of the API server (embedded as certificate-authority-data / caData)')
      .option('--embed-config', 'put the config in the manifest and set provideClusterInfo: true');
    command.options.find((o) => o.long === '--api-version')!.description = `apiVersion of the exec entry: client.authentication.k8s.io/v1 or v1beta1 (default: client.authentication.k8s.io/${apiVersion})`;
    return command;
  };
  const manifestFlags = (options: ManifestOptions) => ({
    ...requestFlags(options),
    server: options.server,
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.caFile !== undefined ? { caFile: options.caFile } : {}),
    ...(options.embedConfig ? { embedConfig: true } : {}),
  });
  manifestOptions(program.command('kubeconfig').description('print a kubeconfig whose user runs this binary with the config'), 'v1')
    .option('--name <name>', 'name of the cluster, user and context (default: the server host)')
    .option('--cache', 'add --cache to the exec entry')
    .option('--command <path>', `the exec entry's command (default: ${INSTALLED_NAME}, found on the PATH, so that kubectl shows the installHint when it is not)`)
    .action(async (options: ManifestOptions & { command?: string }) => {
      const flags: KubeconfigFlags = { ...manifestFlags(options), ...(options.cache ? { cache: true } : {}), ...(options.command !== undefined ? { command: options.command } : {}) };
      for (const note of await kubeconfig(flags, deps.cwd?.() ?? '.', useCaseDeps(options))) line(note);
    });
  manifestOptions(program.command('argocd-secret').description('print an Argo CD cluster secret whose execProviderConfig runs this binary'), 'v1beta1')
    .requiredOption('--name <name>', 'name of the cluster in Argo CD')
    .option('--namespace <namespace>', 'namespace of Argo CD', ARGOCD_NAMESPACE)
    .option('--command <path>', 'path of webapi-credential in the Argo CD containers', ARGOCD_COMMAND)
    .action(async (options: ManifestOptions) => {
      const flags: ArgoCdSecretFlags = { ...manifestFlags(options), namespace: options.namespace, command: options.command };
      for (const note of await argoCdSecret(flags, useCaseDeps(options))) line(note);
    });
  program
    .command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('<shell>', SHELLS.join(', ')).choices(SHELLS))
    .action((shell: Shell) => deps.stdout(completionScript(shell, describeProgram(program), program.name())));
  addExamples(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      // With get-token the default command, a mistyped command reaches it as an argument.
      const first = argv[0];
      if (error.code === 'commander.excessArguments' && first !== undefined && !first.startsWith('-')) {
        const names = program.commands.map((command) => command.name()).filter((name) => name !== 'help');
        const guess = closest(first, names);
        line(`unknown command ${JSON.stringify(first)}; ${guess ? `did you mean ${guess}?` : `the commands are ${names.join(', ')}`} (see --help)`);
        return 2;
      }
      // Commander puts its "Did you mean" suggestion on a second line: keep the message on one.
      line(`${error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ')} (see --help)`);
      return 2;
    }
    return failure(error, verbose);
  }
}

/** Adds the options of `flags` to `command`, as the table declares them. */
function addFlags(command: Command, flags: readonly Flag[]): Command {
  for (const flag of flags) {
    const option = new Option(flagSyntax(flag), flag.description);
    if (flag.choices) option.choices(flag.choices);
    if (flag.default !== undefined) option.default(flag.default);
    if (flag.repeatable) option.argParser((value: string, previous: string[] = []) => [...previous, value]);
    command.addOption(option);
  }
  return command;
}
