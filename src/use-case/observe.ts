// What doctor (use-case/doctor/) sees of a get-token run: each stage's outcome and timing, reported
// through deps.observe as the stages happen. The stages stay the ones get-token runs; nothing here
// sends, renders or extracts a second time. Absent on a normal call.
import type { CredentialStatus } from '../credential/exec-credential.js';
import type { HttpObservation } from '../request/observe-http.js';
import type { ProviderConfig } from '../config/schema.js';
import type { CacheEvent } from '../cache/index.js';
import type { RenderedRequest } from '../request/build.js';

export type StageEvent =
  /** The config was read, validated and rendered (placeholders for steps' values). */
  | { stage: 'prepare'; ms: number; prepared: PreparedView }
  /** What the cache did (cache/events.ts); its `keyed` event names the slot doctor inspects afterwards. */
  | { stage: 'cache'; event: CacheEvent }
  /** One request, a step's (`label` is its name) or the main one, with every exchange of it (retries, redirects). */
  | { stage: 'send'; label: string; ms: number; ok: boolean; exchanges: HttpObservation[] }
  /** The credential taken from the main answer; `expiresAt` as the answer gave it, before the margin. */
  | { stage: 'extract'; ms: number; status: CredentialStatus; expiresAt: number | undefined }
  /** A login's or a refresh's token answer gave a credential; whether it held a refresh token (`login` says when not). */
  | { stage: 'login'; grant: 'device_code' | 'authorization_code' | 'refresh_token'; refreshToken: boolean }
  /** The credential the call prints, fetched or from the cache. */
  | { stage: 'credential'; status: CredentialStatus };

/** What doctor reads of use-case/prepare.ts's Prepared (its own type here: prepare.ts imports deps.ts). */
export interface PreparedView {
  config: ProviderConfig;
  origin: string;
  /** The env names and files the request was rendered from. */
  dependencies: { env: string[]; files: string[] };
  /** The rendered token request and each grant's own request of a login: what they ask the issuer for. */
  request: Pick<RenderedRequest, 'url' | 'headers' | 'body'>;
  logins: Array<{ request: Pick<RenderedRequest, 'url' | 'headers' | 'body'> }>;
}
