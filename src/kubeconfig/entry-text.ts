// Our entries as the text spliced into a user's kubeconfig (splice.ts): block lines at the column of
// the list they join, or flow YAML on one line, written so that kubectl's YAML 1.1 reads them as
// they are (yaml11.ts), with the file's own line breaks.
import { escape11, stringify11 } from './yaml11.js';

type YamlModule = typeof import('yaml');

/** One list entry as block YAML: its dash at column `dash`, its keys at column `content`, no final newline. */
export function entryText(
  YAML: YamlModule,
  entry: Record<string, unknown>,
  dash: number,
  content: number,
  flush: boolean,
): string {
  return `${' '.repeat(dash)}-${' '.repeat(content - dash - 1)}${blockBody(YAML, entry, content, flush)}`;
}

/** An entry as a block mapping whose first key is already at column `column`: the other lines indented to it. */
export function blockBody(YAML: YamlModule, entry: Record<string, unknown>, column: number, flush: boolean): string {
  const body = stringify11(YAML, entry, { lineWidth: 0, indentSeq: !flush }).replace(/\n$/, '').split('\n');
  const pad = ' '.repeat(column);
  return body.map((line, i) => (i === 0 || line === '' ? line : `${pad}${line}`)).join('\n');
}

/**
 * A value as flow YAML on one line: JSON, which YAML reads, with the characters kubectl's YAML does
 * not read as themselves in a quoted scalar escaped (escape11); JSON.stringify escapes only those
 * below U+0020. The yaml library's own flow style folds a string with newlines over lines.
 */
export function flowText(value: unknown): string {
  return escape11(JSON.stringify(value));
}

/** Generated lines with the file's line breaks (the yaml library writes \n; a string with a CR is quoted, never raw). */
export const withBreaks = (nl: string, block: string) => (nl === '\n' ? block : block.split('\n').join(nl));
