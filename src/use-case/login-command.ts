// `webapi-credential login`: get-token with a login now, whatever the cache holds and whether or not
// the call is interactive (a person asked for it). The credential goes to the cache (--cache), not to
// the terminal: the person is told until when it is good.
import type { CredentialStatus } from '../credential/exec-credential.js';
import type { Deps, GetTokenFlags } from './deps.js';
import { getToken } from './get-token.js';
import type { StageEvent } from './observe.js';

export async function runLogin(flags: GetTokenFlags, deps: Deps): Promise<void> {
  let printed = '';
  // Whether the cache was on (--cache, or the config's cache.enabled) and where: get-token tells its stages.
  let keyedDir: string | undefined;
  let cacheDir: string | undefined;
  const observe = (event: StageEvent) => {
    if (event.stage !== 'cache') return;
    if (event.event.kind === 'keyed') keyedDir = event.event.slot.dir;
    if (event.event.kind === 'stored') cacheDir = keyedDir;
  };
  await getToken({ ...flags, output: 'exec-credential', login: true }, { ...deps, stdout: (text) => void (printed += text), observe });
  const expiry = (JSON.parse(printed) as { status: CredentialStatus }).status.expirationTimestamp;
  const good = expiry ? `; the credential is good until ${expiry}` : '';
  (deps.say ?? deps.warn)(
    cacheDir !== undefined
      ? `logged in${good}, and cached in ${cacheDir}: kubectl uses it with the same config and --cache`
      : `logged in${good}; add --cache (as the kubeconfig's exec entry has it) to keep the credential for kubectl`,
  );
}
