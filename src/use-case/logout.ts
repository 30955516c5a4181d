// `webapi-credential logout`: the entry of the config it is given (its credential, refresh token and
// remembered failure) removed from the cache, then the refresh token it held revoked at
// login.revocation.url when the config has one (RFC 7009). The config is the flags', or a kubeconfig context's exec
// entry read as doctor reads it (nothing there runs). A failed revocation is exit 3, said after the
// local entry is gone: the person is logged out here either way, and told the issuer may not know.
import { readProblem, RequestError, UsageError } from '../errors.js';
import { forgetEntry, type CacheDeps } from '../cache/index.js';
import { parseResponseBody } from '../credential/extract.js';
import { describeRequest, renderRequest } from '../request/build.js';
import { atEndpoint } from '../login/endpoint.js';
import {
  readRevocationAnswer,
  revocationRequest,
  revocationRequestConfig,
  REVOCATION_ROOT,
} from '../login/revocation.js';
import { execInfoFor, readKubeconfigExec } from './manifest/manifest-read.js';
import type { Deps, GetTokenFlags } from './deps.js';
import { cacheCall } from './get-token.js';
import { prepare, type Prepared } from './prepare.js';
import { sendOptions } from './send-options.js';

export interface LogoutFlags {
  run: GetTokenFlags;
  kubeconfig?: string;
  context?: string;
}

/** `execArgs`: an exec entry's args read as get-token options (cli/'s parser, lent as doctor's is). */
export async function logout(
  flags: LogoutFlags,
  deps: Deps,
  execArgs: (args: string[]) => GetTokenFlags | undefined,
): Promise<void> {
  const deadline = deps.now() + flags.run.timeoutMs;
  deps.redactor.setDeadline(() => deps.now() >= deadline);
  const { run, env } = await source(flags, deps, execArgs);
  const callDeps: Deps = { ...deps, env };
  const prepared = await prepare(run, callDeps);
  const login = prepared.config.login;
  if (!login)
    throw new UsageError(
      'LOGIN_NONE',
      'logout drops the login of a config with login; this config has none (cache clear removes every cached credential)',
      { framed: true },
    );
  const call = cacheCall(prepared, run, deadline, callDeps);
  const cacheDeps: CacheDeps = { ...deps.cache, now: deps.now, trace: deps.trace, warn: deps.warn };
  let failed: unknown;
  let revoked = false;
  // Under the key's lock: a refresh in another process cannot store its answer back once we are done.
  const { removed, token } = await forgetEntry(call, cacheDeps, async (held) => {
    deps.redactor.add(held);
    if (!login.revocation) return;
    try {
      await revoke(prepared, login.revocation.url, held, deadline, callDeps);
      revoked = true;
    } catch (error) {
      failed = error;
    }
  });
  const where = `${call.dir}`;
  const local = removed
    ? `logged out: removed this config's cached credential${token ? ' and refresh token' : ''} from ${where}`
    : `logged out: nothing of this config was cached in ${where}`;
  const issuer = !token
    ? ''
    : revoked
      ? `; the refresh token was revoked at ${new URL(login.revocation!.url).host}`
      : login.revocation
        ? ''
        : '; the refresh token was not revoked (the config has no login.revocation.url): the issuer honours it until it expires';
  deps.stdout(`${local}${issuer}\n`);
  if (failed !== undefined) {
    const error = atEndpoint(failed, 'revocation');
    if (!(error instanceof RequestError)) throw error;
    throw new RequestError(
      'REVOCATION_FAILED',
      `${error.message}: the refresh token was removed here but may still be valid at the issuer until it expires`,
      {
        cause: error,
        status: error.status,
        framed: error.framed,
      },
    );
  }
}

/** The flags to run and the environment, from this command's options or a kubeconfig's exec entry. */
async function source(
  flags: LogoutFlags,
  deps: Deps,
  execArgs: (args: string[]) => GetTokenFlags | undefined,
): Promise<{ run: GetTokenFlags; env: Deps['env'] }> {
  if (flags.context !== undefined && flags.kubeconfig === undefined)
    throw new UsageError('FLAG_CONFLICT', '--context needs --kubeconfig');
  if (flags.kubeconfig === undefined) return { run: flags.run, env: deps.env };
  const given = flags.run;
  if ((given.config ?? given.configInline ?? given.configFromCluster ?? given.set) !== undefined) {
    throw new UsageError(
      'FLAG_CONFLICT',
      "logout --kubeconfig reads the config options of the exec entry's args; leave --config, --config-inline, --config-from-cluster and --set out",
    );
  }
  let content: string;
  try {
    content = deps.readFile(flags.kubeconfig);
  } catch (error) {
    throw new UsageError('SOURCE', `cannot read kubeconfig ${flags.kubeconfig}: ${readProblem(error)}`, {
      cause: error,
    });
  }
  const entry = await readKubeconfigExec(content, flags.kubeconfig, flags.context);
  const parsed = execArgs(entry.args);
  if (!parsed) throw new UsageError('SOURCE', `${entry.origin}: its args are not get-token options this version knows`);
  // The entry's cache directory unless this command names one; this command's --timeout.
  const run: GetTokenFlags = {
    ...parsed,
    timeoutMs: given.timeoutMs,
    ...(given.cacheDir !== undefined ? { cacheDir: given.cacheDir } : {}),
  };
  let caPem = entry.cluster.caPem;
  if (caPem === undefined && entry.cluster.caFile !== undefined) {
    try {
      caPem = deps.readFile(entry.cluster.caFile);
    } catch {
      // The CA only matters to a config whose templates read the cluster: its key is then another one.
    }
  }
  return { run, env: { ...deps.env, ...entry.env, KUBERNETES_EXEC_INFO: execInfoFor(entry, caPem) } };
}

/** RFC 7009 §2.1: POST the token with token_type_hint=refresh_token and the client's authentication. */
async function revoke(prepared: Prepared, url: string, token: string, deadline: number, deps: Deps): Promise<void> {
  const { config } = prepared;
  const rendered = await renderRequest(
    revocationRequestConfig(config, url),
    prepared.renderer,
    deps.version,
    prepared.readFile,
    deps.redactor,
    REVOCATION_ROOT,
  );
  const request = revocationRequest(rendered, token);
  deps.trace(`request:\n${describeRequest(request)}`, true);
  const response = await deps.send(request, {
    ...sendOptions(config, deadline, deps),
    announce: (line) => deps.warn(line, true),
    answerStatuses: [400, 401],
  });
  let document: unknown;
  try {
    document = parseResponseBody(response.body, response.contentType, response.bytes, (text) =>
      deps.redactor.redact(text),
    );
  } catch {
    // An error page that is no JSON: its status says enough.
  }
  readRevocationAnswer(response.status, document, (text) => deps.redactor.redact(text));
}
