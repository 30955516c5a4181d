// What a renderer has registered with the redactor, and the texts shown in a URL's path that it will
// register once a secret they are computed from is secret everywhere (it reaches a header, a query
// value, the body, tls or a helper's secret argument, in any field, before or after).
import type { Redactor } from '../redact/redactor.js';
import { MARK, type Taint } from './evaluate-value.js';

export class SecretRegistry {
  /** Taint nodes already registered: each is walked once, however many values share it. */
  private readonly registered = new WeakSet<Taint>();
  /** Taint nodes registered only as the data a part reaching a secret field was read from (Taint.part). */
  private readonly registeredForPart = new WeakSet<Taint>();
  /** Texts registered with the redactor. */
  private readonly added = new Set<string>();
  /** Texts a secret decided, registered with the redactor apart (Redactor.addDecided). */
  private readonly addedDecided = new Set<string>();
  /** Texts secret everywhere: what reached a secret field, and what that was computed from (not only read out of). */
  private readonly whole = new Set<string>();
  /** Texts shown in a URL's path, by a secret they are computed from: registered once that is secret everywhere (showUnless). */
  private readonly shownFrom = new Map<string, string[]>();

  constructor(private readonly redactor: Redactor) {}

  /** Registers a secret text once, however many fields hold it. */
  private add(text: string): void {
    if (this.added.has(text)) return;
    this.added.add(text);
    this.redactor.add(text);
  }

  /**
   * Registers a text a secret decided (the word a comparison chose, and what is computed from it):
   * searched in what may echo what was sent, not in the plugin's own frame of a message (redactor.ts).
   */
  addDecided(text: string): void {
    if (this.addedDecided.has(text)) return;
    this.addedDecided.add(text);
    this.redactor.addDecided(text);
  }

  /** Registers a text that is secret everywhere, and what is shown computed from it (showUnless). */
  addWhole(text: string): void {
    const stack = [text];
    while (stack.length > 0) {
      const next = stack.pop()!;
      this.add(next);
      if (this.whole.has(next)) continue;
      this.whole.add(next);
      stack.push(...(this.shownFrom.get(next) ?? []));
      this.shownFrom.delete(next);
    }
  }

  /**
   * A value computed from secrets, shown in the URL's path: secret once one of the values it is
   * computed from is secret everywhere (it reaches a header, now or in a later field). The redactor
   * finds a secret's copies and encodings in it, but not what a helper decodes from one
   * (base64decode(env.S), a part of fromJson(env.S)): that text is registered itself. A step's
   * answer (MARK) is secret everywhere already. Data only a part of which reached a secret field
   * (a key file's private_key) is not: another part of it (its token_uri) stays shown.
   */
  showUnless(text: string, taint: Taint): void {
    const sources = new Set<string>();
    const seen = new Set<Taint>();
    const stack = [taint];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      if (node === MARK) return this.addWhole(text);
      for (const source of node.own) {
        if (this.whole.has(source)) return this.addWhole(text);
        sources.add(source);
      }
      stack.push(...node.parents);
    }
    for (const source of sources) {
      const waiting = this.shownFrom.get(source);
      if (waiting) waiting.push(text);
      else this.shownFrom.set(source, [text]);
    }
  }

  /**
   * Registers every string a secret value derives from, each node of its taint once (twice at most:
   * first reached only as the data a part was read from, then whole).
   */
  register(taint: Taint): void {
    const stack: Array<[Taint, boolean]> = [[taint, false]];
    while (stack.length > 0) {
      const [node, forPart] = stack.pop()!;
      if (this.registered.has(node) || (forPart && this.registeredForPart.has(node))) continue;
      (forPart ? this.registeredForPart : this.registered).add(node);
      for (const text of node.own) {
        if (forPart) this.add(text);
        else this.addWhole(text);
      }
      for (const text of node.chosen ?? []) this.addDecided(text);
      for (const parent of node.parents) stack.push([parent, forPart || node.part === true]);
    }
  }
}
