// `webapi-credential login`: get-token with a login now, whatever the cache holds and whether or not
// the call is interactive (a person asked for it). The credential goes to the cache (by default;
// --no-cache not), not to the terminal: the person is told until when it is good, and when no refresh
// token came with it, what that means.
import type { CredentialStatus } from '../credential/exec-credential.js';
import type { Deps, GetTokenFlags } from './deps.js';
import { getToken } from './get-token.js';
import type { StageEvent } from './observe.js';

export async function runLogin(flags: GetTokenFlags, deps: Deps): Promise<void> {
  let printed = '';
  // Whether the cache was used and where, and whether the answer held a refresh token: get-token tells its stages.
  let keyedDir: string | undefined;
  let cacheDir: string | undefined;
  let refreshToken: boolean | undefined;
  const observe = (event: StageEvent) => {
    if (event.stage === 'login') refreshToken = event.refreshToken;
    if (event.stage !== 'cache') return;
    if (event.event.kind === 'keyed') keyedDir = event.event.slot.dir;
    if (event.event.kind === 'stored') cacheDir = keyedDir;
  };
  // A login that is thrown away helps nobody: cached unless --no-cache says not to.
  await getToken(
    { ...flags, cache: flags.cache ?? true, output: 'exec-credential', login: true },
    { ...deps, stdout: (text) => void (printed += text), observe },
  );
  // The plugin's frame (CredentialError.framed): a word of it a secret decided reads the same whichever
  // it chose. The expiry is what the answer gave: redacted in full where it is put in; the cache's
  // directory is the flags' or the home's.
  const shown = deps.say ?? deps.warn;
  const say = (line: string) => shown(line, true);
  const given = (JSON.parse(printed) as { status: CredentialStatus }).status.expirationTimestamp;
  const expiry = given !== undefined ? deps.redactor.redact(given) : undefined;
  const good = expiry ? `; the credential is good until ${expiry}` : '';
  say(
    cacheDir !== undefined
      ? `logged in${good}, and cached in ${cacheDir}: kubectl uses it with the same config and --cache`
      : flags.cache === false
        ? `logged in${good}; not cached (--no-cache): kubectl will ask for a login of its own`
        : `logged in${good}; the cache could not keep it (webapi-credential --verbose says why)`,
  );
  if (refreshToken === false) {
    say(
      `no refresh token came back (the issuer may not have granted offline_access, or gives none to this client): a new login is needed when the credential expires${expiry ? ` at ${expiry}` : ''}`,
    );
  }
}
