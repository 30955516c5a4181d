// doctor's token API, credential and cache stages, read from what get-token reported
// (use-case/observe.ts) and, for the cache, from its events and its inspect(): nothing the cache
// would refuse to trust is read here either.
import { CredentialError } from '../../errors.js';
import type { ProviderConfig, RequestConfig } from '../../config/schema.js';
import type { Deps } from '../deps.js';
import type { StageEvent } from '../observe.js';
import type { HttpObservation, TlsPeer } from '../../request/observe-http.js';
import { inspect } from '../../cache/index.js';
import { describeToken, describeTokenKind, failedStage, seconds, stage, type Stage } from './stage.js';
import type { CredentialStatus } from '../../credential/exec-credential.js';

type Send = Extract<StageEvent, { stage: 'send' }>;

/** Which trust verified (or would have verified) a request's server certificate. */
function trustOf(settings: RequestConfig): string {
  const { tls } = settings;
  if (tls.insecureSkipVerify) return 'nothing (tls.insecureSkipVerify)';
  if (tls.caFile !== undefined) return `the system roots plus tls.caFile ${tls.caFile}`;
  if (tls.caData !== undefined) return 'the system roots plus tls.caData';
  return 'the system roots';
}

/** A server's certificate as a framed line puts it in: what the server sent redacted in full. */
function shownPeer(peer: TlsPeer, redact: (text: string) => string): TlsPeer {
  return { ...peer, subject: redact(peer.subject), issuer: redact(peer.issuer), validTo: redact(peer.validTo) };
}

function peerText(peer: TlsPeer, settings: RequestConfig): string {
  const by =
    peer.trust === 'ca'
      ? settings.tls.caFile !== undefined
        ? `tls.caFile ${settings.tls.caFile}`
        : 'tls.caData'
      : peer.trust === 'none'
        ? 'nothing (tls.insecureSkipVerify)'
        : 'the system roots';
  return `TLS ${peer.subject} issued by ${peer.issuer}, expires ${peer.validTo}, verified by ${by}`;
}

/** `200 in 28 ms (DNS 1, connect 2, TLS 9 ms)`: what the exchange got, and where its time went. */
function exchangeText(x: HttpObservation, redact: (text: string) => string): string {
  const { lookup, connect, tls, answer } = x.timings;
  const phases = [
    lookup !== undefined ? `DNS ${lookup}` : '',
    connect !== undefined ? `connect ${connect}` : '',
    tls !== undefined ? `TLS ${tls}` : '',
  ].filter((p) => p !== '');
  return `${x.status !== undefined ? x.status : x.error !== undefined ? redact(x.error) : 'no answer'}${answer !== undefined ? ` in ${answer} ms` : ''}${phases.length > 0 ? ` (${phases.join(', ')} ms)` : ''}`;
}

/** Every step and the main request: status and time; the main request's server certificate. */
/** `loggedIn`: a login ran now (doctor --login): its own requests gave the credential, not the cache. */
export function tokenApiStage(
  sends: Send[],
  config: ProviderConfig,
  failure: unknown,
  loggedIn: boolean,
  /** The run's redaction of what a server gave, put into a framed line (Stage.framed). */
  redact: (text: string) => string,
): Stage {
  const settingsOf = (label: string): RequestConfig =>
    label === 'main' ? config : (config.steps.find((s) => s.name === label) ?? config);
  // The stage is the plugin's frame (Stage.framed): the request's own URL as shown, and everything a
  // server gave (another hop's URL, an error code, its Date, its certificate) redacted in full here.
  const urlOf = (x: HttpObservation) => (x.shown ? x.url : redact(x.url));
  const requests = sends.map((send) => {
    const last = send.exchanges.at(-1);
    const first = send.exchanges[0];
    const name =
      send.label === 'main' ? `${config.method} ${first ? urlOf(first) : config.url}` : `steps.${send.label}`;
    return {
      name,
      label: send.label,
      ms: send.ms,
      exchanges: send.exchanges.map((x) => exchangeText(x, redact)),
      observed: send.exchanges,
      tls: last?.tls ? shownPeer(last.tls, redact) : undefined,
      ok: send.ok,
    };
  });
  // Each exchange (retries, redirects) with its status or error code and its timings; never a header but Date.
  const details = {
    requests: requests.map(({ name, ms, observed, tls, ok }) => ({
      name,
      ms,
      ok,
      exchanges: observed.map((x) => ({
        url: urlOf(x),
        ...(x.status !== undefined ? { status: x.status } : {}),
        ...(x.error !== undefined ? { error: redact(x.error) } : {}),
        ...(x.date !== undefined ? { date: redact(x.date) } : {}),
        timings: x.timings,
      })),
      ...(tls ? { tls } : {}),
    })),
  };
  const said = requests.map((r) => `${r.name}: ${r.exchanges.join(', ') || 'no answer'}`).join('; ');
  const last = requests.at(-1);
  const certificate = last?.tls ? `; ${peerText(last.tls, settingsOf(last.label))}` : '';
  if (failure instanceof CredentialError) {
    const line = failedStage('token API', failure, details);
    // A certificate that failed: who sent it and what was asked to trust it. Only for a TLS failure:
    // after a 401 the handshake passed, and a note on trust would send people the wrong way.
    const tlsFailure = /^(TLS|PROXY_TLS)/.test(failure.code);
    if (!tlsFailure) return line;
    if (last?.tls)
      line.notes.push(
        `the server sent ${last.tls.subject} issued by ${last.tls.issuer}; trusted were ${trustOf(settingsOf(last.label))}`,
      );
    else if (last && /CERT|SIGNATURE|ISSUER|SELF_SIGNED/.test(last.observed.at(-1)?.error ?? ''))
      line.notes.push(`trusted were ${trustOf(settingsOf(last.label))}`);
    return line;
  }
  if (sends.length === 0 && loggedIn)
    return stage(
      'token API',
      'pass',
      'called by the login above: its token endpoint gave the credential',
      details,
      true,
    );
  if (sends.length === 0)
    return stage(
      'token API',
      'skip',
      'not called: the credential came from the cache (--no-cache calls the token API)',
      details,
      true,
    );
  return stage('token API', 'pass', `${said}${certificate}`, details, true);
}

/** What the cache did for the call (its events), then the entry and the lock of the call's key as the cache reads them. */
export function cacheStage(events: StageEvent[], deps: Deps): Stage {
  const happened = events.flatMap((e) => (e.stage === 'cache' ? [e.event] : []));
  const notes = happened.flatMap((e) => (e.text !== undefined ? [e.text] : []));
  const keyed = happened.find((e) => e.kind === 'keyed');
  if (!keyed) {
    const line = stage('cache', 'pass', 'on, but not used for this call: every call goes to the token API', {}, true);
    line.warnings.push(...notes);
    return line;
  }
  const { dir } = keyed.slot;
  const now = deps.now();
  const { entry, lock } = inspect(keyed.slot, { ...deps.cache, now: deps.now });
  const parts = [`${dir}: `];
  const details: Record<string, unknown> = { dir };
  const outage = happened.find((e) => e.kind === 'outage');
  if (outage) {
    parts.push(
      `served through an outage (the credential really expires at ${new Date(outage.expiresAt).toISOString()}); `,
    );
    details['servedThroughOutage'] = { expiresAt: new Date(outage.expiresAt).toISOString() };
  }
  if (entry.kind === 'credential') {
    const expires = Date.parse(entry.expirationTimestamp);
    parts.push(`entry expires in ${seconds(expires - now)} (${entry.expirationTimestamp})`);
    details['entry'] = { expirationTimestamp: entry.expirationTimestamp };
  } else if (entry.kind === 'failure') {
    // Read through the same trusted reader as a credential: the message was redacted when kept.
    const { exitCode, at, until } = entry;
    parts.push(
      `a failure remembered ${seconds(now - at)} ago (exit ${exitCode}), asked again in ${seconds(until - now)}; webapi-credential cache clear asks now`,
    );
    details['entry'] = null;
    details['failure'] = { exitCode, rememberedAt: new Date(at).toISOString(), until: new Date(until).toISOString() };
  } else {
    parts.push(`no usable entry (${entry.reason})`);
    details['entry'] = null;
  }
  let said: string;
  if (lock.kind === 'held') {
    const holder =
      lock.holder === 'alive'
        ? 'alive'
        : lock.holder === 'gone'
          ? 'gone: the next call recovers it'
          : 'on another host or container: recovered by its age';
    said = `a lock held by pid ${lock.pid} (${holder})`;
    details['lock'] = { pid: Number.parseInt(lock.pid, 10), holder };
  } else {
    said = lock.kind === 'none' ? 'no lock' : `a lock it would not trust (${lock.why})`;
    details['lock'] = null;
  }
  parts.push(`; ${said}`);
  // The plugin's frame: fixed words, the cache's own directory, times and pids (as its trace lines are).
  const line = stage('cache', 'pass', parts.join(''), details, true);
  line.notes.push(...notes);
  return line;
}

/**
 * A login config's login stage: whether a person logged in now (--login), whether the credential was
 * refreshed, and the refresh token the cache holds (and since when; never the token), which is what
 * serves once the credential expires without a person. `failure`: a login that could not happen.
 */
export function loginStage(
  events: StageEvent[],
  how: { ran: boolean; cacheOn: boolean; failure?: CredentialError },
  deps: Deps,
): Stage {
  if (how.failure) return failedStage('login', how.failure);
  const refreshed = !how.ran && events.some((e) => e.stage === 'send' && e.label === 'main' && e.ok);
  const parts = [
    how.ran
      ? 'logged in now (device authorization grant)'
      : refreshed
        ? 'the credential had expired: refreshed with the refresh token the cache holds, no person needed'
        : 'no login run (doctor --login logs in now at a terminal)',
  ];
  const details: Record<string, unknown> = { loggedIn: how.ran, refreshed };
  const keyed = events.flatMap((e) => (e.stage === 'cache' && e.event.kind === 'keyed' ? [e.event] : []))[0];
  if (!how.cacheOn) {
    parts.push(
      'no refresh token is kept (the cache is off): each call without a credential needs a person; add --cache',
    );
  } else if (keyed) {
    const { refresh } = inspect(keyed.slot, { ...deps.cache, now: deps.now });
    if (refresh) {
      parts.push(
        `a refresh token held, kept ${seconds(deps.now() - refresh.at)} ago: it serves without a prompt once the credential expires`,
      );
      details['refreshToken'] = { keptAt: new Date(refresh.at).toISOString() };
    } else {
      parts.push(
        'no refresh token held: once the credential expires, a person logs in again (kubectl get ns at a terminal, or webapi-credential login)',
      );
      details['refreshToken'] = null;
    }
  }
  // Fixed words, a number of seconds and the time the cache kept: the plugin's frame (Stage.framed).
  return stage('login', 'pass', parts.join('; '), details, true);
}

/** client-go trusts this machine's clock: past this, the expiry it computes can be off. */
const SKEW_WARNING_MS = 30_000;

/** The credential: its kind, its expiry as kubectl will read it, and this machine's clock against the token API's. */
export function credentialStage(
  status: CredentialStatus,
  extracted: Extract<StageEvent, { stage: 'extract' }> | undefined,
  sends: Array<Extract<StageEvent, { stage: 'send' }>>,
  now: number,
  /** The run's redaction of what the answer gave: the summary is the plugin's frame (Stage.framed). */
  redact: (text: string) => string,
): Stage {
  const parts: string[] = [];
  const details: Record<string, unknown> = {};
  if (status.token !== undefined) {
    const kind = describeToken(status.token);
    parts.push(describeTokenKind(kind, redact));
    details['token'] = {
      ...kind,
      ...(kind.claims
        ? { claims: Object.fromEntries(Object.entries(kind.claims).map(([name, value]) => [name, redact(value)])) }
        : {}),
      ...(kind.otherClaims ? { otherClaims: kind.otherClaims.map(redact) } : {}),
    };
  }
  if (status.clientCertificateData !== undefined) {
    parts.push('a client certificate and key');
    details['clientCertificate'] = true;
  }
  if (extracted?.expiresAt !== undefined) {
    parts.push(
      `expires at ${redact(new Date(extracted.expiresAt).toISOString())} (in ${seconds(extracted.expiresAt - now)}), reported to kubectl as ${redact(status.expirationTimestamp ?? '')}`,
    );
    details['expiresAt'] = redact(new Date(extracted.expiresAt).toISOString());
  } else if (status.expirationTimestamp) {
    parts.push(`from the cache, reported to kubectl as expiring at ${redact(status.expirationTimestamp)}`);
  } else {
    parts.push('no expiry known: kubectl runs the plugin again only after a 401');
  }
  if (status.expirationTimestamp) details['expirationTimestamp'] = redact(status.expirationTimestamp);
  if (extracted) details['ms'] = extracted.ms;
  const line = stage('credential', 'pass', parts.join('; '), details, true);
  // The main answer's Date header against this machine's clock.
  const answer = sends
    .filter((e) => e.label === 'main')
    .flatMap((e) => e.exchanges)
    .findLast((x) => x.date !== undefined);
  const date = answer?.date !== undefined ? Date.parse(answer.date) : Number.NaN;
  if (answer?.receivedAt !== undefined && Number.isFinite(date)) {
    const skew = answer.receivedAt - date;
    details['clockSkewMs'] = skew;
    if (Math.abs(skew) > SKEW_WARNING_MS) {
      line.warnings.push(
        `this machine's clock is ${seconds(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} the token API's (its Date header); client-go trusts the local clock to decide when a credential expires: set the time (NTP)`,
      );
    } else {
      // The Date header has whole seconds, and the answer took its time: two seconds are no skew it can show.
      line.summary +=
        Math.abs(skew) <= 2000
          ? "; this machine's clock agrees with the token API's"
          : `; this machine's clock is ${seconds(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} the token API's`;
    }
  }
  return line;
}
