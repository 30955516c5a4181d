// What doctor found, stage by stage, as the report prints it (cli/doctor-report.ts formats it), and
// the credential described without showing it.
import type { CredentialError, ExitCode } from '../../errors.js';
import { jwtClaims } from '../../credential/jwt-claims.js';

/** `login` is shown for a config with login only (doctor.ts). */
export const STAGES = ['source', 'config', 'login', 'token API', 'credential', 'cache', 'cluster'] as const;
export type StageName = (typeof STAGES)[number];

export interface Stage {
  name: StageName;
  result: 'pass' | 'fail' | 'skip';
  /** One line: what was found, or for a failure what failed and what to do. */
  summary: string;
  warnings: string[];
  notes: string[];
  /** Facts for -o json (names, times, statuses; never a secret). */
  details: Record<string, unknown>;
  /** The failing stage's exit code. */
  exitCode?: ExitCode;
  /**
   * The summary, warnings, notes and details are the plugin's frame, their echoes redacted where they
   * were put in (a failure's CredentialError.framed message, the cache's lines): the report does not
   * search them for the values a secret decided.
   */
  framed?: boolean;
}

export function stage(
  name: StageName,
  result: Stage['result'],
  summary: string,
  details: Record<string, unknown> = {},
  /** The summary is the plugin's own words and the config's names (Stage.framed). */
  framed = false,
): Stage {
  return { name, result, summary, warnings: [], notes: [], details, ...(framed ? { framed } : {}) };
}

/** A stage that failed with `error`: its message, framed as the error is (CredentialError.framed), and its codes. */
export function failedStage(name: StageName, error: CredentialError, details: Record<string, unknown> = {}): Stage {
  return {
    ...stage(name, 'fail', error.message, { ...details, code: error.code }, error.framed),
    exitCode: error.exitCode,
  };
}

const NAMED_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'nbf'] as const;
const TIME_CLAIMS = new Set(['exp', 'iat', 'nbf']);

export interface TokenKind {
  kind: 'JWT' | 'opaque';
  length: number;
  /** iss, sub, aud and the times of a JWT; exp, iat and nbf as RFC 3339. */
  claims?: Record<string, string>;
  /** The names of its other claims (a name that does not look like one is counted). */
  otherClaims?: string[];
}

/** What a token is, never what it says beyond the registered claims: JWT claims, or its length. */
export function describeToken(token: string): TokenKind {
  const entries = jwtClaims(token);
  if (entries !== undefined) {
    const claims: Record<string, string> = {};
    for (const name of NAMED_CLAIMS) {
      const value = entries[name];
      if (value === undefined) continue;
      if (
        TIME_CLAIMS.has(name) &&
        typeof value === 'number' &&
        Number.isFinite(value) &&
        Math.abs(value) < 253402300800
      )
        claims[name] = new Date(value * 1000).toISOString().replace(/\.000Z$/, 'Z');
      else claims[name] = (Array.isArray(value) ? value.map(String).join(',') : String(value)).slice(0, 200);
    }
    const others = Object.keys(entries).filter((name) => !(NAMED_CLAIMS as readonly string[]).includes(name));
    const shown = others.filter((name) => /^[A-Za-z_][\w.:-]{0,39}$/.test(name)).slice(0, 30);
    const unnamed = others.length - shown.length;
    return {
      kind: 'JWT',
      length: token.length,
      claims,
      otherClaims: unnamed > 0 ? [...shown, `(${unnamed} more)`] : shown,
    };
  }
  return { kind: 'opaque', length: token.length };
}

/** The kind in words: the plugin's frame, with what the token says (its claims' values, other claims' names) put in through `redact`. */
export function describeTokenKind(kind: TokenKind, redact: (text: string) => string): string {
  if (kind.kind === 'opaque') return `token, opaque, ${kind.length} characters`;
  const claims = Object.entries(kind.claims ?? {}).map(([name, value]) => `${name} ${redact(value)}`);
  const others = kind.otherClaims?.length ? `; other claims: ${redact(kind.otherClaims.join(', '))}` : '';
  return `token, JWT, ${kind.length} characters${claims.length > 0 ? `: ${claims.join(', ')}` : ''}${others}`;
}

/** Seconds, as people read a duration. */
export function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
