// `webapi-credential doctor`: why does kubectl say Unauthorized? It runs get-token as kubectl or Argo
// CD would (the exec entry's command, args, env and KUBERNETES_EXEC_INFO), watches its stages
// through deps.observe, then asks the cluster who the credential is. It observes the pipeline; the
// HTTP client, renderer and extractor stay the ones get-token uses. Loaded only for this command.
import { CredentialError, readProblem, RequestError, UsageError, type ExitCode } from '../../errors.js';
import { audiences, jwtClaims } from '../../credential/jwt-claims.js';
import { askedOf, type Asked } from '../cluster-auth/asked.js';
import { placeholderMessage, placeholdersLeft } from '../../config/env-placeholder.js';
import { selectSource } from '../../config/load.js';
import { readExecInfo } from '../../credential/exec-credential.js';
import type { Deps } from '../deps.js';
import type { StageEvent } from '../observe.js';
import { getToken } from '../get-token.js';
import { readCertificateFile } from '../certificates.js';
import { execInfoFor, readArgoCdSecret, readKubeconfigExec } from '../manifest/manifest-read.js';
import { REPORT_GRACE_MS } from '../../redact/redactor.js';
import { failedStage, stage, STAGES, type Stage } from './stage.js';
import { cacheStage, credentialStage, loginStage, tokenApiStage } from './doctor-stages.js';
import { checkCommand, optionNames } from './exec-command.js';
import type { DoctorFlags, DoctorSystem } from './deps.js';

export async function doctor(flags: DoctorFlags, deps: Deps, system: DoctorSystem): Promise<ExitCode> {
  if (flags.kubeconfig !== undefined && flags.argocdSecret !== undefined) {
    throw new UsageError('FLAG_CONFLICT', 'doctor takes --kubeconfig or --argocd-secret, not both');
  }
  if (flags.context !== undefined && flags.kubeconfig === undefined)
    throw new UsageError('FLAG_CONFLICT', '--context needs --kubeconfig');
  const given = flags.run;
  if (
    (flags.kubeconfig ?? flags.argocdSecret) !== undefined &&
    (given.config ?? given.configInline ?? given.configFromCluster ?? given.set) !== undefined
  ) {
    throw new UsageError(
      'FLAG_CONFLICT',
      `doctor ${flags.kubeconfig !== undefined ? '--kubeconfig' : '--argocd-secret'} runs the config options of the exec entry's args; leave --config, --config-inline, --config-from-cluster and --set out`,
    );
  }
  // A login needs a person to answer it: at this terminal.
  if (flags.login && deps.login?.terminal() !== true) {
    throw new UsageError(
      'LOGIN_NO_TERMINAL',
      'doctor --login runs a login, and nobody can answer its prompt here (stdin or stderr is no terminal); run it at a terminal, or leave --login out to see the login stage',
    );
  }
  // The whole of doctor stays within --timeout, as a call does: each stage gets what is left.
  const deadline = (deps.started ?? deps.now()) + flags.run.timeoutMs;
  const left = () => Math.max(1, deadline - deps.now());
  const stages: Stage[] = [];
  // The login stage is a login config's (or --login's) only: other reports stay as they were.
  let loginShown = flags.login === true;
  const finish = (): ExitCode => {
    const failed = stages.find((s) => s.result === 'fail');
    const code = failed?.exitCode ?? 0;
    for (const name of STAGES)
      if (!stages.some((s) => s.name === name) && (name !== 'login' || loginShown))
        stages.push(stage(name, 'skip', failed ? `not run: ${failed.name} failed` : 'not run', {}, true));
    stages.sort((a, b) => STAGES.indexOf(a.name) - STAGES.indexOf(b.name));
    // The report's own grace past the call's deadline, as report.ts gives a failure's line: a
    // cluster stage that ran out the --timeout would otherwise show every line as not checked.
    const until = deps.now() + REPORT_GRACE_MS;
    deps.redactor.graceAfterDeadline(() => deps.now() >= until);
    const { redactor } = deps;
    deps.stdout(
      system.report(flags.format, stages, code, {
        redact: (text) => redactor.redact(text),
        redactFrame: (text) => redactor.redactFrame(text),
      }),
    );
    return code;
  };
  const fail = (name: Stage['name'], error: unknown): ExitCode => {
    if (!(error instanceof CredentialError)) throw error;
    stages.push(failedStage(name, error));
    return finish();
  };

  // 1. source: the exec entry as kubectl or Argo CD would run it, or this command's own flags.
  let run = flags.run;
  let env = deps.env;
  let server = flags.server;
  let caPem: string | undefined;
  let clusterTls: { serverName?: string; insecure?: boolean } = {};
  let interactiveMode: string | undefined;
  try {
    if (flags.caFile !== undefined) caPem = readCa(flags.caFile, '--ca-file', deps);
    const file = flags.kubeconfig ?? flags.argocdSecret;
    if (file !== undefined) {
      let content: string;
      try {
        content = deps.readFile(file);
      } catch (error) {
        throw new UsageError(
          'SOURCE',
          `cannot read ${flags.kubeconfig !== undefined ? 'kubeconfig' : 'Argo CD secret'} ${file}: ${readProblem(error)}`,
          { cause: error },
        );
      }
      const source =
        flags.kubeconfig !== undefined
          ? await readKubeconfigExec(content, file, flags.context)
          : await readArgoCdSecret(content, file);
      const found = checkCommand(source, file, deps, system);
      // The same check get-token makes, here at the source: the secret's env is what to fix.
      const placeholders = placeholdersLeft(source.env);
      if (placeholders.length > 0) throw new UsageError('ENV_PLACEHOLDER', placeholderMessage(placeholders));
      const parsed = system.execArgs(source.args);
      if (!parsed)
        throw new UsageError(
          'SOURCE',
          `${source.origin}: its args are not get-token options this version knows; run them by hand to see which`,
        );
      // doctor's own --no-cache, --cache-dir and --timeout still hold: a look past a cached credential.
      const { cache, cacheDir } = flags.run;
      run = {
        ...parsed,
        timeoutMs: flags.run.timeoutMs,
        ...(cache !== undefined ? { cache } : {}),
        ...(cacheDir !== undefined ? { cacheDir } : {}),
      };
      // A secret's --cache-dir is the Argo CD containers' emptyDir: here it would make (as root) a
      // directory at the root of this machine. doctor caches in its own.
      const containerCacheDir = source.kind === 'argocd-secret' && cacheDir === undefined ? run.cacheDir : undefined;
      if (containerCacheDir !== undefined) {
        delete run.cacheDir;
        found.notes.push(
          `--cache-dir ${containerCacheDir} is the Argo CD containers' emptyDir: doctor caches in its own directory here (doctor --cache-dir chooses it)`,
        );
      }
      if (source.cluster.caFile !== undefined && source.cluster.caPem === undefined)
        source.cluster.caPem = readCa(source.cluster.caFile, 'certificate-authority', deps);
      caPem ??= source.cluster.caPem;
      server ??= source.cluster.server;
      clusterTls = {
        ...(source.cluster.serverName !== undefined ? { serverName: source.cluster.serverName } : {}),
        ...(source.cluster.insecure ? { insecure: true } : {}),
      };
      interactiveMode = source.interactiveMode;
      if (flags.login && source.interactiveMode === 'Never')
        throw new UsageError(
          'LOGIN_NEVER',
          `doctor --login: ${source.origin} says interactiveMode: Never, so kubectl never lets the plugin prompt; log in with webapi-credential login, or set interactiveMode: IfAvailable`,
        );
      env = { ...deps.env, ...source.env, KUBERNETES_EXEC_INFO: execInfoFor(source, caPem, flags.login === true) };
      // The plugin's frame (Stage.framed): the file's and its entry's names, the command found, option
      // and env names. Nothing here was rendered, so nothing a secret decided; the values read are still
      // hidden from the whole report (formatReport's redactFrame).
      stages.push({
        ...stage(
          'source',
          'pass',
          `${source.origin}: runs ${found.summary}; apiVersion ${source.apiVersion ?? '(none)'}; args ${optionNames(source.args)}; env ${Object.keys(source.env).join(', ') || '(none)'}; provideClusterInfo ${source.provideClusterInfo}${source.interactiveMode ? `; interactiveMode ${source.interactiveMode}` : ''}`,
          {
            origin: source.origin,
            command: source.command,
            ...(found.path !== undefined ? { path: found.path } : {}),
            apiVersion: source.apiVersion ?? null,
            env: Object.keys(source.env),
            provideClusterInfo: source.provideClusterInfo,
            ...(source.interactiveMode ? { interactiveMode: source.interactiveMode } : {}),
          },
          true,
        ),
        notes: found.notes,
      });
    } else {
      const chosen = selectSource(run, env, readExecInfo(env['KUBERNETES_EXEC_INFO']).cluster);
      stages.push(stage('source', 'pass', `config from ${chosen.origin}`, { origin: chosen.origin }, true));
    }
  } catch (error) {
    return fail('source', error);
  }

  // 2-5: get-token as it runs, watched.
  const events: StageEvent[] = [];
  // doctor runs no login, even at a terminal, unless --login asks for one (then at this terminal).
  const { login: terminal, ...outside } = deps;
  const runDeps: Deps = {
    ...outside,
    ...(flags.login && terminal ? { login: terminal } : {}),
    env,
    // What it would print is seen as the credential event, never shown.
    stdout: () => {},
    observe: (event) => events.push(event),
  };
  let failure: unknown;
  try {
    await getToken(
      {
        ...run,
        output: 'exec-credential',
        timeoutMs: flags.run.timeoutMs,
        deadline: deps.now() + left(),
        ...(flags.login ? { login: true } : {}),
      },
      runDeps,
    );
  } catch (error) {
    if (!(error instanceof CredentialError)) throw error;
    failure = error;
  }
  const prepared = events.find((e) => e.stage === 'prepare');
  if (!prepared) return fail('config', failure);
  const { config, dependencies } = prepared.prepared;
  const envRead = dependencies.env.filter((name) => name !== 'KUBERNETES_EXEC_INFO');
  stages.push(
    stage(
      'config',
      'pass',
      // The plugin's words and the config's names: its frame.
      `valid (${prepared.prepared.origin}); ${envRead.length > 0 ? `env ${envRead.join(', ')} set` : 'reads no env'}; ${dependencies.files.length > 0 ? `files ${dependencies.files.join(', ')} readable` : 'reads no files'}`,
      {
        origin: prepared.prepared.origin,
        env: dependencies.env,
        files: dependencies.files,
        steps: config.steps.map((s) => s.name),
        ms: prepared.ms,
      },
      true,
    ),
  );
  const cacheOn = run.cache ?? config.cacheEnabled;
  if (config.login || flags.login) {
    loginShown = true;
    // A login that could not happen (nobody to answer, refused, expired, Ctrl-C, no login in the config): exit 2, here.
    const loginFailure =
      failure instanceof CredentialError && failure.exitCode === 2
        ? atTerminal(failure, flags.login === true, interactiveMode, deps)
        : undefined;
    const line = loginStage(
      events,
      {
        ran: flags.login === true && loginFailure === undefined,
        cacheOn,
        ...(loginFailure ? { failure: loginFailure } : {}),
      },
      deps,
    );
    stages.push(line);
    if (line.result === 'fail') return finish();
  }
  const sends = events.filter((e): e is Extract<StageEvent, { stage: 'send' }> => e.stage === 'send');
  const mainAnswered = sends.some((e) => e.label === 'main' && e.ok);
  const api = tokenApiStage(
    sends,
    config,
    failure !== undefined && !mainAnswered ? failure : undefined,
    flags.login === true && failure === undefined,
    (text) => deps.redactor.redact(text),
  );
  stages.push(api);
  if (api.result === 'fail') return finish();
  if (failure !== undefined) return fail('credential', failure);

  // 4. credential: what get-token would print, described, never shown.
  const printed = events.find((e) => e.stage === 'credential');
  if (!printed) throw new Error('get-token ended without a credential');
  const { status } = printed;
  const extracted = events.find((e) => e.stage === 'extract');
  const credential = credentialStage(status, extracted, sends, deps.now(), (text) => deps.redactor.redact(text));
  const missing =
    status.token !== undefined
      ? notCarried(
          status.token,
          askedOf([prepared.prepared.request, ...prepared.prepared.logins.map((login) => login.request)]),
          (text) => deps.redactor.redact(text),
        )
      : undefined;
  if (missing) credential.warnings.push(missing);
  stages.push(credential);

  // 5. cache
  if (cacheOn) stages.push(cacheStage(events, deps));
  else stages.push(stage('cache', 'skip', 'off (--cache or cache.enabled turns it on)', {}, true));

  // 6. cluster
  if (server === undefined) {
    stages.push(
      stage(
        'cluster',
        'skip',
        'no server known: pass --server (and --ca-file), --kubeconfig or --argocd-secret',
        {},
        true,
      ),
    );
    return finish();
  }
  // The plugin's frame (Stage.framed, CredentialError.framed): what the kubeconfig and the cluster gave
  // redacted in full where it is put in, the fixed words not searched for a word a secret decided.
  const r = (text: string) => deps.redactor.redact(text);
  try {
    if (!/^https:\/\/[^/?#]+/i.test(server) || !URL.canParse(server)) {
      throw new UsageError(
        'SERVER_INVALID',
        `the cluster's server ${r(JSON.stringify(server))} is not an https:// URL: doctor asks only an API server it can authenticate`,
        { framed: true },
      );
    }
    const whoAmI = system.whoAmI;
    if (!whoAmI) throw new Error('doctor needs the cluster client');
    const tls = {
      ...(caPem !== undefined ? { ca: caPem } : {}),
      ...(clusterTls.serverName !== undefined ? { serverName: clusterTls.serverName } : {}),
      insecureSkipVerify: clusterTls.insecure === true,
    };
    const who = await whoAmI({ server, tls }, status, { deadline, now: deps.now, redact: r });
    const user = who.user
      ? {
          username: r(who.user.username),
          ...(who.user.uid ? { uid: r(who.user.uid) } : {}),
          groups: who.user.groups.map(r),
        }
      : undefined;
    const said = user
      ? `user ${user.username}${user.uid ? ` (uid ${user.uid})` : ''}, groups ${user.groups.join(', ') || '(none)'} (${who.reviewApi} SelfSubjectReview)`
      : 'the credential was not refused';
    const certificate = who.tls
      ? `; TLS ${r(who.tls.subject)} issued by ${r(who.tls.issuer)}, expires ${r(who.tls.validTo)}`
      : '';
    const version = who.version ? r(who.version) : undefined;
    const line = stage(
      'cluster',
      'pass',
      `${r(server)}${version ? ` (${version})` : ''}: ${said}${certificate}`,
      {
        server: r(server),
        ...(version ? { version } : {}),
        ...(user ? { user, reviewApi: who.reviewApi } : {}),
      },
      true,
    );
    line.notes.push(...who.notes);
    stages.push(line);
  } catch (error) {
    return fail(
      'cluster',
      error instanceof RequestError && error.code === 'CLUSTER_UNAUTHORIZED' && status.token !== undefined
        ? refusedToken(error, status.token, r)
        : error,
    );
  }
  return finish();
}

/** The asked audience or resource that the token's aud lacks, said with what it carries instead. */
/** A warning of the credential's stage, the plugin's frame: the token's aud (what the answer gave) put in through `redact`. */
function notCarried(token: string, asked: Asked, redact: (text: string) => string): string | undefined {
  const claims = jwtClaims(token);
  // One a secret decided is not compared: whether the token carries it would tell the secret.
  const shown = asked.audiences.filter((a) => a.secretFrom === undefined);
  if (!claims || shown.length === 0) return undefined;
  const aud = audiences(claims);
  const lacking = shown.filter((a) => !aud.includes(a.value));
  if (lacking.length === 0) return undefined;
  return `the config asked for ${lacking.map((a) => `${a.parameter} ${a.value}`).join(' and ')}, which the token does not carry (its aud: ${aud.length > 0 ? redact(aud.join(', ')) : '(none)'}): an id_token's aud is the client id; for an access token, oidc-provider, AD FS, Entra ID v1 and PingFederate read resource, Auth0 reads audience`;
}

/** A 401 with a JWT: the iss and aud the cluster refused, and the command that prints what it must trust. */
function refusedToken(error: RequestError, token: string, redact: (text: string) => string): RequestError {
  const claims = jwtClaims(token);
  if (!claims) return error;
  // The token's claims are what the token API gave: redacted in full where they are put in.
  const iss = typeof claims['iss'] === 'string' ? redact(claims['iss']) : '(none)';
  const aud = audiences(claims).map(redact).join(', ') || '(none)';
  const said = `${error.message}; the token's iss is ${iss} and its aud ${aud}: webapi-credential cluster-auth --from-token (with this config) prints what the cluster must trust for them`;
  return new RequestError(error.code, said, { cause: error, framed: error.framed });
}

/**
 * doctor runs no login unless --login asks: at a terminal, a login that is needed is what --login is
 * for, not "nobody can answer" (a person is right there). Elsewhere the failure is said as it is.
 */
function atTerminal(
  failure: CredentialError,
  login: boolean,
  interactiveMode: string | undefined,
  deps: Deps,
): CredentialError {
  if (login || failure.code !== 'LOGIN_NEEDED' || interactiveMode === 'Never' || deps.login?.terminal() !== true)
    return failure;
  return new UsageError(
    'LOGIN_NEEDED',
    'a login is needed, and doctor runs none unless asked: run this doctor command again with --login to log in at this terminal (or webapi-credential login)',
    { framed: true },
  );
}

/** The cluster's CA: its certificates (a key in the file is left out: doctor only connects with it). */
function readCa(path: string, what: string, deps: Deps): string {
  return readCertificateFile(path, what, deps).pem;
}
