// One field as the renderer gives it back: the text sent, the text shown, its secrets and what its
// template read; build.ts and tls-material.ts assemble the request from these.
import { stepReferences } from './check.js';
import type { Part } from './parse.js';

/** Where a template's text goes: the URL (shown up to its query) or any other field (secret). */
export type FieldKind = 'url' | 'value';

/** One field as rendered: what is sent, what is shown, its secrets and what it read. */
export interface RenderedField {
  /** The text sent; empty when the field failed (its problem is collected: finish() throws it). */
  sent: string;
  /** The text `render`, `validate`, traces and messages show: a secret too short for the redactor to find is [REDACTED] here. */
  shown: string;
  /** The secret interpolations it holds, registered with the redactor already. */
  secrets: readonly string[];
  read: FieldReads;
}

export interface FieldReads {
  /** A value from env, vars, cluster, steps or a file: a relative path there means the current directory. */
  outside: boolean;
  /** A value a secret decided: a check of the text that fails must not say which (DECIDED_FAILURE). */
  decided: boolean;
  /** The steps its template reads (`steps.login…`), by name. */
  steps: readonly string[];
  /** Holds a value a secret decided that was withheld (withholdDecided): its text is not checked. */
  withheld: boolean;
  /** Holds a secret read (not decided) too short for the redactor, [REDACTED] in the shown text. */
  shortRead?: boolean;
  /** A secret reached it where it is one (a value field, a URL from its query on, a value a secret chose), placeholders included. */
  secret: boolean;
}

const NOTHING_READ: FieldReads = { outside: false, decided: false, steps: [], withheld: false, secret: false };

/** A field that is text of the config (or empty, when it failed). */
export function literal(text: string): RenderedField {
  return { sent: text, shown: text, secrets: [], read: NOTHING_READ };
}

/** The step names the parts of a template read. */
export function stepsOf(parts: Part[]): string[] {
  const names = new Set<string>();
  for (const part of parts)
    if (typeof part !== 'string') for (const step of stepReferences(part.node)) if (step !== null) names.add(step);
  return [...names];
}
