// The YAML we write is read by kubectl, whose reader (go-yaml v2, through sigs.k8s.io/yaml) speaks
// YAML 1.1: there a plain on, no, y, Off is a boolean and 1_000, 0o17, 1:20, 2001-12-14 a number or a
// time. The yaml library writes YAML 1.2, where all of them are strings, plain: `--name on` gave
// `name: on`, and kubectl refused the whole kubeconfig (cannot unmarshal bool into ... of type string).
// Rather than follow every YAML 1.1 type (and go-yaml's own readings of them), a string is written
// plain only when it matches a pattern none of them claims; any other is quoted.
import type { Document, Node } from 'yaml';

type YamlModule = typeof import('yaml');

/**
 * Every YAML 1.1 type a plain scalar can take other than a string (bool, null, int, float, timestamp,
 * merge, value) is one of a few words or starts with a digit, a sign, a dot, `~`, `<` or `=`: a string
 * whose first character is a letter, `_` or `/` (or `-`, `--` and a letter: `--cache`) and which is not
 * one of those words is a string to YAML 1.1 as well. The words: YAML 1.1's booleans and null, in any
 * case (its list is case by case; every case is quoted).
 */
const SAFE_START = /^(?:[A-Za-z_/]|--?[A-Za-z_])/;
const WORDS = /^(?:y|n|yes|no|true|false|on|off|null)$/i;

/**
 * What kubectl's YAML does not read as itself in a scalar: characters it refuses unescaped (C0 and C1
 * controls but tab and the line ends, DEL, U+FEFF, U+FFFE, U+FFFF) and those it ends a line at (U+0085,
 * U+2028, U+2029). The yaml library writes them raw, even in double quotes: such a string is written
 * double-quoted, each of them as a \u escape (escape11).
 */
const UNREAD = /[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ufefe\uff00-\ufffd]/;
const UNREAD_ALL = new RegExp(UNREAD.source, 'g');

/** `text` (YAML we wrote, where only double-quoted scalars can hold them) with every UNREAD character escaped. */
export function escape11(text: string): string {
  return text.replace(UNREAD_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether a plain scalar of this text is the same string to YAML 1.1 as to YAML 1.2. */
export function plainSafe(value: string): boolean {
  return SAFE_START.test(value) && !WORDS.test(value);
}

/**
 * Marks each string scalar under `node` that would be written plain and is not plainSafe as quoted,
 * in the quotes the yaml library picks for a string it must quote (single when it holds a `"` and no
 * `'`). A string over lines is left alone: the library writes it as a block scalar or quoted, and a
 * plain one over lines is no YAML 1.1 type either. A style the node already has is kept.
 */
export function quoteFor11(YAML: YamlModule, node: Node | Document | null): void {
  if (node === null) return;
  YAML.visit(node, {
    Scalar(_key, scalar) {
      const { value } = scalar;
      if (typeof value !== 'string') return;
      if (UNREAD.test(value)) {
        scalar.type = 'QUOTE_DOUBLE';
        return;
      }
      if ((scalar.type !== undefined && scalar.type !== 'PLAIN') || value.includes('\n') || plainSafe(value)) return;
      scalar.type = value.includes('"') && !value.includes("'") ? 'QUOTE_SINGLE' : 'QUOTE_DOUBLE';
    },
  });
}

/**
 * Whether kubectl's YAML 1.1 reads `node` as the yaml library does: no alias (its anchor may be a
 * plain `on` elsewhere), no tag, and no plain string (key or value) that is not plainSafe.
 */
export function readsSameIn11(YAML: YamlModule, node: Node): boolean {
  let same = true;
  YAML.visit(node, {
    Node(_key, child) {
      const plainString =
        YAML.isScalar(child) &&
        child.type === 'PLAIN' &&
        typeof child.value === 'string' &&
        !child.value.includes('\n');
      if (
        YAML.isAlias(child) ||
        (YAML.isScalar(child) || YAML.isCollection(child) ? child.tag !== undefined : false) ||
        (plainString && !plainSafe(child.value as string))
      ) {
        same = false;
        return YAML.visit.BREAK;
      }
      return undefined;
    },
  });
  return same;
}

/** YAML.stringify, with every string YAML 1.1 could read as something else quoted (quoteFor11), and escaped where it must be (escape11). */
export function stringify11(
  YAML: YamlModule,
  value: unknown,
  options: import('yaml').ToStringOptions & import('yaml').DocumentOptions = {},
): string {
  const doc = new YAML.Document(value, options);
  quoteFor11(YAML, doc);
  return escape11(doc.toString(options));
}
