// argv -> options -> use case, and the single catch that turns any error into one line on stderr
// and an exit code. Never calls process.exit: run() returns the code (citty is the counter-example).
import { Argument, Command, CommanderError, Option } from 'commander';
import { UsageError, type ExitCode } from '../errors.js';
import { reporter } from './report.js';
import type { CliDeps } from './deps.js';
import {
  CLUSTER_AUTH_FLAGS,
  DEFAULT_TIMEOUT,
  DOCTOR_FLAGS,
  GET_TOKEN_FLAGS,
  KUBECONFIG_FLAGS,
  doctorFlags,
  durationFlag,
  flagSyntax,
  getTokenFlags,
  requestFlags,
  type Flag,
  type ParsedFlags,
} from './flags.js';
import type { Deps } from '../use-case/deps.js';
import { getToken } from '../use-case/get-token.js';
import { render, validate } from '../use-case/inspect.js';
import { clearCache } from '../use-case/clear-cache.js';
import { describeProgram } from './completion.js';
import { SHELLS, completionScript, type Shell } from '../completion/script.js';
import { addExamples } from './help.js';
import { ARGOCD_CACHE_DIR, ARGOCD_COMMAND, ARGOCD_NAMESPACE, INSTALLED_NAME } from '../use-case/manifest/manifests.js';
import {
  argoCdSecret,
  kubeconfig,
  type ArgoCdSecretFlags,
  type KubeconfigFlags,
} from '../use-case/manifest/generators.js';
import { subcommandMissing, usageFailure } from './usage.js';

export async function run(argv: string[], deps: CliDeps): Promise<ExitCode> {
  let verbose = argv.includes('-v') || argv.includes('--verbose');
  const { line, failure, useCaseDeps: depsFor } = reporter(deps);
  const useCaseDeps = (options: ParsedFlags): Deps => {
    verbose = options.verbose === true;
    return depsFor(verbose);
  };

  const program = new Command('webapi-credential')
    .description('Kubernetes exec credential plugin: call a token API, take a JSON field, print an ExecCredential.')
    .version(deps.versionLine ?? deps.version, '--version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => deps.stdout(s), writeErr: () => {} })
    .showSuggestionAfterError(true);

  // validate, render and the generators take the request flags of get-token's table.
  const requestOptions = (command: Command) =>
    addFlags(
      command,
      GET_TOKEN_FLAGS.filter((flag) => flag.request),
    );

  addFlags(
    program.command('get-token', { isDefault: true }).description('print an ExecCredential (the default command)'),
    GET_TOKEN_FLAGS,
  ).action(async (options: ParsedFlags) => {
    await getToken(getTokenFlags(options), useCaseDeps(options));
  });

  addFlags(
    program
      .command('login')
      .description(
        'log in now, as a person at a terminal (a config with login), and cache the credential (--no-cache: do not)',
      ),
    GET_TOKEN_FLAGS.filter((flag) => flag.key !== 'output'),
  )
    .addOption(
      new Option(
        '--grant <grant>',
        'the grant to log in with: browser (authorization code) or device (a code to type), whatever this machine offers',
      ).choices(['browser', 'device']),
    )
    .option('--no-browser', 'browser login: only print the URL to open, do not open a browser')
    .action(async (options: ParsedFlags & { grant?: 'browser' | 'device'; browser?: boolean }) => {
      const { runLogin } = await import('../use-case/login-command.js');
      await runLogin(
        {
          ...getTokenFlags(options),
          ...(options.grant ? { grant: options.grant } : {}),
          ...(options.browser === false ? { noBrowser: true } : {}),
        },
        useCaseDeps(options),
      );
    });
  // logout: this config's entry, from the flags or a kubeconfig context's exec entry (read as doctor reads it).
  addFlags(
    program
      .command('logout')
      .description(
        "drop this config's credential and refresh token from the cache, revoking it at the issuer (login.revocation.url)",
      ),
    [
      ...GET_TOKEN_FLAGS.filter((flag) => flag.request || flag.key === 'cacheDir' || flag.key === 'timeout'),
      ...DOCTOR_FLAGS.filter((flag) => flag.key === 'kubeconfig' || flag.key === 'context'),
    ],
  ).action(async (options: ParsedFlags) => {
    const [{ logout }, { parseFastArgs }] = await Promise.all([
      import('../use-case/logout.js'),
      import('./fast-path.js'),
    ]);
    const execArgs = (args: string[]) => {
      const parsed = parseFastArgs(args);
      return parsed && getTokenFlags(parsed);
    };
    const { kubeconfig, context } = options;
    await logout(
      {
        run: getTokenFlags(options),
        ...(kubeconfig !== undefined ? { kubeconfig } : {}),
        ...(context !== undefined ? { context } : {}),
      },
      useCaseDeps(options),
      execArgs,
    );
  });
  requestOptions(
    program.command('validate').description('check the config, its templates and the env they read; no network'),
  )
    .option(
      '--allow-unset-env',
      'an unset env variable is no error: checked with a stand-in, noted on stderr (for CI, where secrets are absent)',
    )
    .action(async (options: ParsedFlags & { allowUnsetEnv?: boolean }) =>
      validate(requestFlags(options), useCaseDeps(options), options.allowUnsetEnv === true),
    );
  requestOptions(
    program.command('render').description('print the request it would send, secrets redacted; no network'),
  ).action(async (options: ParsedFlags) => render(requestFlags(options), useCaseDeps(options)));

  const cache = program.command('cache').description('manage the on-disk token cache');
  const cacheClear = cache.command('clear').description('remove every cached credential');
  addFlags(
    cacheClear,
    GET_TOKEN_FLAGS.filter((flag) => flag.key === 'cacheDir' || flag.key === 'verbose'),
  ).action(async (options: ParsedFlags) =>
    clearCache(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}, useCaseDeps(options)),
  );

  // Manifests that run this binary: each validates the config as the plugin will run it first.
  interface ManifestOptions extends ParsedFlags {
    server: string;
    name?: string;
    caFile?: string;
    tokenCaFile?: string;
    embedConfig?: boolean;
    namespace: string;
    command: string;
  }
  const manifestOptions = (command: Command, apiVersion: string) => {
    // --config-from-cluster is the plugin's at run time: a generator's config comes from --config or --config-inline.
    addFlags(
      command,
      GET_TOKEN_FLAGS.filter((flag) => flag.request && flag.key !== 'configFromCluster'),
    )
      .requiredOption('--server <url>', 'https:// URL of the Kubernetes API server')
      .option(
        '--ca-file <path>',
        "the cluster's CA: PEM bundle of the Kubernetes API server (embedded as certificate-authority-data / caData)",
      )
      .option(
        '--token-ca-file <path>',
        "the token API's CA: PEM bundle of the server the config calls (written into the config as tls.caData); not the cluster's",
      )
      .option('--embed-config', 'put the config in the manifest and set provideClusterInfo: true');
    command.options.find((o) => o.long === '--api-version')!.description =
      `apiVersion of the exec entry: client.authentication.k8s.io/v1 or v1beta1 (default: client.authentication.k8s.io/${apiVersion})`;
    return command;
  };
  const manifestFlags = (options: ManifestOptions) => ({
    ...requestFlags(options),
    server: options.server,
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.caFile !== undefined ? { caFile: options.caFile } : {}),
    ...(options.tokenCaFile !== undefined ? { tokenCaFile: options.tokenCaFile } : {}),
    ...(options.embedConfig ? { embedConfig: true } : {}),
  });
  manifestOptions(
    program.command('kubeconfig').description('print a kubeconfig whose user runs this binary with the config'),
    'v1',
  )
    .option(
      '--name <name>',
      "name of the cluster, user and context (default: the server's host, with its port unless 443)",
    )
    .option(
      '--command <path>',
      `the exec entry's command (default: ${INSTALLED_NAME}, found on the PATH, so that kubectl shows the installHint when it is not)`,
    );
  const kubeconfigCommand = program.commands.find((command) => command.name() === 'kubeconfig')!;
  for (const flag of KUBECONFIG_FLAGS) kubeconfigCommand.option(flag.syntax, flag.description);
  kubeconfigCommand.action(
    async (options: ManifestOptions & { command?: string; merge?: string | true; use?: boolean; kuberc?: boolean }) => {
      if (options.use && options.merge === undefined)
        throw new UsageError(
          'FLAG_INVALID',
          '--use sets current-context of the kubeconfig --merge writes: add --merge',
        );
      if (options.kuberc && options.merge === undefined)
        throw new UsageError(
          'FLAG_INVALID',
          '--kuberc allows the plugin of the kubeconfig --merge writes: add --merge',
        );
      const flags: KubeconfigFlags = {
        ...manifestFlags(options),
        cache: options.cache !== false,
        ...(options.command !== undefined ? { command: options.command } : {}),
        ...(options.merge !== undefined ? { merge: options.merge } : {}),
        ...(options.use ? { use: true } : {}),
        ...(options.kuberc ? { kuberc: true } : {}),
      };
      for (const note of await kubeconfig(flags, deps.cwd?.() ?? '.', useCaseDeps(options))) line(note);
    },
  );
  manifestOptions(
    program
      .command('argocd-secret')
      .description('print an Argo CD cluster secret whose execProviderConfig runs this binary'),
    'v1beta1',
  )
    .requiredOption('--name <name>', 'name of the cluster in Argo CD')
    .option('--namespace <namespace>', 'namespace of Argo CD', ARGOCD_NAMESPACE)
    .option('--command <path>', 'path of webapi-credential in the Argo CD containers', ARGOCD_COMMAND)
    .option(
      '--cache',
      `add --cache and --cache-dir ${ARGOCD_CACHE_DIR} (the memory-backed emptyDir of examples/argocd): one credential for the clusters behind one token API`,
    )
    .action(async (options: ManifestOptions) => {
      const flags: ArgoCdSecretFlags = {
        ...manifestFlags(options),
        namespace: options.namespace,
        command: options.command,
        ...(options.cache ? { cache: true } : {}),
      };
      for (const note of await argoCdSecret(flags, useCaseDeps(options))) line(note);
    });
  // Without an action commander shows help and ends well: `cache` alone would do nothing, exit 0.
  cache
    .usage('<command> [options]')
    .argument('[command]')
    .action((name: string | undefined) => {
      throw subcommandMissing(cache, name);
    });
  addFlags(
    program
      .command('init')
      .description('print a starting config for a known provider; without one, the list')
      .argument('[provider]', 'a provider of the list'),
    GET_TOKEN_FLAGS.filter((flag) => flag.key === 'set' || flag.key === 'timeout' || flag.key === 'verbose'),
  ).action(async (provider: string | undefined, options: ParsedFlags) => {
    const { listProviders, providerConfig } = await import('../use-case/init.js');
    if (provider === undefined) return deps.stdout(listProviders());
    // `init oidc --set issuer=…` reads the issuer's discovery document, within --timeout.
    const flags = {
      provider,
      timeoutMs: durationFlag('--timeout', options.timeout ?? DEFAULT_TIMEOUT),
      cwd: deps.cwd?.() ?? '.',
      ...(options.set ? { set: options.set } : {}),
    };
    deps.stdout(await providerConfig(flags, useCaseDeps(options)));
  });
  // doctor: every get-token flag but its -o (the report's format instead), and where to read the run.
  addFlags(
    program
      .command('doctor')
      .description(
        'walk the stages of a call (source, config, token API, credential, cache, cluster) and say which one breaks',
      ),
    [...GET_TOKEN_FLAGS.filter((flag) => flag.key !== 'output'), ...DOCTOR_FLAGS],
  ).action(async (options: ParsedFlags) => {
    const [{ doctor }, { formatReport }, { parseFastArgs }] = await Promise.all([
      import('../use-case/doctor/doctor.js'),
      import('./doctor-report.js'),
      import('./fast-path.js'),
    ]);
    // An exec entry's args are read as the fast path reads argv: the get-token options this version knows.
    const execArgs = (args: string[]) => {
      const parsed = parseFastArgs(args);
      return parsed && getTokenFlags(parsed);
    };
    const code = await doctor(doctorFlags(options), useCaseDeps(options), { ...deps, execArgs, report: formatReport });
    if (code !== 0) throw new DoctorExit(code);
  });
  // cluster-auth: what the cluster must trust for this config's credential (SPEC "The cluster side").
  const clusterAuthCommand = addFlags(
    program
      .command('cluster-auth')
      .description(
        "print what the cluster must trust for this config's credential: an AuthenticationConfiguration, the --oidc-* flags, a ClusterRoleBinding",
      ),
    GET_TOKEN_FLAGS.filter((flag) => flag.key !== 'output' && flag.key !== 'apiVersion'),
  );
  for (const flag of CLUSTER_AUTH_FLAGS) clusterAuthCommand.option(flag.syntax, flag.description);
  clusterAuthCommand.action(async (options: ParsedFlags & Record<string, string | boolean | undefined>) => {
    const { clusterAuth } = await import('../use-case/cluster-auth/cluster-auth.js');
    const text = (key: string) => (typeof options[key] === 'string' ? { [key]: options[key] } : {});
    await clusterAuth(
      {
        run: getTokenFlags(options),
        fromToken: options['fromToken'] === true,
        usernameClaim: (options['usernameClaim'] as string | undefined) ?? 'sub',
        usernamePrefix: (options['usernamePrefix'] as string | undefined) ?? 'oidc:',
        role: (options['role'] as string | undefined) ?? 'view',
        ...text('issuer'),
        ...text('groupsClaim'),
        ...text('groupsPrefix'),
        ...text('bindGroup'),
        ...(options['bindUser'] !== undefined ? { bindUser: options['bindUser'] as string | true } : {}),
      },
      useCaseDeps(options),
    );
  });
  program
    .command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('[shell]', SHELLS.join(', ')).choices(SHELLS))
    .action(async (shell: Shell | undefined) => {
      if (shell === undefined)
        throw new UsageError(
          'SUBCOMMAND_MISSING',
          `completion needs a shell: ${SHELLS.join(', ')} (see completion --help)`,
        );
      // init's providers are built in: the script lists them (init itself says "did you mean" to the rest).
      const { providerNames } = await import('../use-case/init.js');
      const spec = describeProgram(program);
      const init = spec.subcommands.find((command) => command.path[0] === 'init');
      if (init) init.argumentChoices = providerNames();
      deps.stdout(completionScript(shell, spec, program.name()));
    });
  // What the completion scripts ask for --context: the kubeconfig's context names, as plain words.
  program
    .command('__complete-contexts', { hidden: true })
    .option('--kubeconfig <file>')
    .action(async (options: { kubeconfig?: string }) => {
      const { kubeconfigContexts } = await import('../kubeconfig/contexts.js');
      const names = await kubeconfigContexts(options.kubeconfig, deps.cwd?.() ?? '.', useCaseDeps({}));
      deps.stdout(names.map((name) => `${name}\n`).join(''));
    });
  addExamples(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return usageFailure(error, argv, program, line);
    // doctor printed its report: its exit code is the failing stage's, with nothing more to say.
    if (error instanceof DoctorExit) return error.code;
    return failure(error, verbose);
  }
}

class DoctorExit extends Error {
  constructor(readonly code: ExitCode) {
    super(`doctor: exit ${code}`);
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
