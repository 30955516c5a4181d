// kubeconfig --merge, edited in place. The kubeconfig is parsed by the yaml library only to learn
// where things are, from the source offsets its nodes carry; then the text itself is edited at those
// offsets: our entry's bytes replaced, a new entry inserted after the last one of its list,
// current-context's value replaced. Everything else keeps its bytes, which re-serialising the whole
// Document did not (`{server: x}` became `{ server: x }`, comments were respaced). A shape that cannot
// be edited so safely is named, and the caller rewrites the Document and says so.
import type { Document, Node, YAMLMap, YAMLSeq } from 'yaml';
import type { NameOf } from './names.js';
import { valueIds } from './values.js';
import { readsSameIn11, stringify11 } from './yaml11.js';
import { blockBody, entryText, flowText, withBreaks } from './entry-text.js';
import { aliasInto } from './aliases.js';

export type YamlModule = typeof import('yaml');

/** What a merge writes: the entries of one name (merge.ts), and what it gives back. */
export interface MergeEntries {
  name: string;
  cluster: Record<string, unknown>;
  user: Record<string, unknown>;
  context: Record<string, unknown>;
}

export interface Merged {
  text: string;
  /** added: none of the three entries was there; updated: some were (and changed); unchanged: the text is the same. */
  outcome: 'added' | 'updated' | 'unchanged';
  /** The server of the cluster entry it replaced, when that was another one. */
  replacedServer?: string;
  /** Why the file was rewritten from the Document rather than edited in place: its formatting may have changed. */
  rewritten?: string;
}

type Range = [number, number, number];

export const SECTIONS = [
  ['clusters', 'cluster'],
  ['users', 'user'],
  ['contexts', 'context'],
] as const;

interface Edit {
  from: number;
  to: number;
  text: string;
  /** A key added to the top level: after whatever a list gains at the same offset. */
  top: boolean;
}

/** Where the line of `at` starts: its first column, past a byte order mark that starts the text (it is no column; the edits keep it). */
function lineStart(text: string, at: number): number {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  return start === 0 && at > 0 && text.charCodeAt(0) === 0xfeff ? 1 : start;
}

/**
 * The offset past the line break that ends the line where a node ends at `end` (the text's end when
 * none does), or undefined when more than blanks and a comment follow the node on that line.
 */
function pastLine(text: string, end: number): number | undefined {
  if (end > 0 && text[end - 1] === '\n') return end;
  const next = text.indexOf('\n', end);
  const stop = next < 0 ? text.length : next;
  return /^[ \t]*(?:#[^\n]*)?\r?$/.test(text.slice(end, stop)) ? (next < 0 ? text.length : next + 1) : undefined;
}

/**
 * The start of the text's last line when it holds only spaces and no line break, unless those spaces
 * are text of a block scalar that ends there (past its indentation: `|` then `  x` then `    `
 * is "x\n  \n"), or the scalar's indentation is not known here (an indicator: |2).
 */
function spacesAtEnd(YAML: YamlModule, root: YAMLMap, text: string): number | undefined {
  const start = text.lastIndexOf('\n') + 1;
  if (start === 0 || start === text.length || !/^ +$/.test(text.slice(start))) return undefined;
  let node: unknown = root;
  for (let depth = 0; depth < 1000 && (YAML.isMap(node) || YAML.isSeq(node)); depth++) {
    const last = (node.items as unknown[]).at(-1);
    node = YAML.isPair(last) ? last.value : last;
  }
  if (!YAML.isScalar(node) || (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED')) return start;
  const range = node.range as Range;
  const header = text.indexOf('\n', range[0]);
  if (header < 0 || /\d/.test(text.slice(range[0], header))) return undefined;
  // Its indentation: the first of its lines with more than spaces.
  const first = /\n( *)[^ \n]/.exec(text.slice(header, range[1]));
  return first !== null && text.length - start <= first[1]!.length ? start : undefined;
}

/** The line break that ends just before `past` (a pastLine offset): `\n`, `\r\n`, or none at the text's end. */
const breakBefore = (text: string, past: number) =>
  text[past - 1] !== '\n' ? '' : text[past - 2] === '\r' ? '\r\n' : '\n';

/** `text` (lines without their break) as what is inserted at `at`, a line start or the end of a text without a final break. */
const asLines = (source: string, at: number, text: string, nl: string) =>
  at > 0 && source[at - 1] !== '\n' ? `${nl}${text}` : `${text}${nl}`;

/**
 * The existing kubeconfig `source` with the entries merged by editing its text, or why it cannot be
 * (the caller then rewrites the Document). `text` is `source` with its lines as kubectl reads them
 * (read.ts: the same offsets), where lines are found; `doc` is the checked parse of it: no errors, a
 * mapping. What is kept is copied from `source`, byte for byte.
 */
export function spliceDocument(
  YAML: YamlModule,
  doc: Document,
  text: string,
  source: string,
  entries: MergeEntries,
  use: boolean,
  nameOf: NameOf,
): Merged | string {
  // A lone CR is a line break to YAML: the offsets below find lines by \n.
  if (/\r(?!\n)/.test(text)) return 'it has line ends of a lone CR';
  const root = doc.contents as YAMLMap | null;
  const rootRange = root?.range as Range | undefined;
  if (!YAML.isMap(root) || rootRange === undefined) return 'it holds no mapping yet';
  const first = text.indexOf('\n');
  const nl = first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n';
  // kubectl writes lists flush with their key; new lists do too unless the file indents its lists.
  const flush = !/^[A-Za-z-]+:[ \t]*\r?\n[ ]+-[ \t]/m.test(text);
  const block = !root.flow;
  const rootColumn = rootRange[0] - lineStart(text, rootRange[0]);
  if (block ? !/^ *$/.test(text.slice(rootRange[0] - rootColumn, rootRange[0])) : text[rootRange[0]] !== '{')
    return 'its top-level mapping starts in a way it does not edit';
  const edits: Edit[] = [];
  const gone: unknown[] = [];
  const ids = valueIds(YAML);
  const idOf = ids.inDocument(doc);
  const same = (node: unknown, value: unknown) =>
    YAML.isNode(node) && readsSameIn11(YAML, node) && idOf(node) === ids.ofValue(value);
  // A last line of only spaces, with no line break: lines added at the text's end go before it, which
  // after them would become a blank line, one more line break of a kept block scalar (|+) ending there.
  const tail = spacesAtEnd(YAML, root, text);
  const past = (end: number) => {
    const at = pastLine(text, end);
    return at === text.length && tail !== undefined ? tail : at;
  };
  const file: File = { YAML, text, nameOf, same, past, flush, nl, edits, gone };
  let found = 0;
  let replacedServer: string | undefined;
  // Keys added to a flow mapping so far: each after the first goes after a comma, even into `{}`.
  let addedFlow = 0;

  /**
   * A top-level key given a value: `key:` then `inline` and the lines `lines` in block style,
   * `flowValue` in flow style. A key the mapping lacks is added at its end; a key it has with no
   * value node (`? key` alone, `{key}`: Document.get cannot tell it from a missing one) is given the
   * value where it stands, never written a second time.
   */
  const setTop = (key: string, inline: string, lines: string | undefined, flowValue: string): string | undefined => {
    const pair = root.items.find((item) => (YAML.isScalar(item.key) ? item.key.value : item.key) === key);
    if (pair !== undefined) {
      const range = (pair.key as { range?: Range } | null)?.range;
      if (range === undefined || pair.value !== null) return `its ${key} is written in a way it does not edit`;
      if (!block) {
        edits.push({ from: range[1], to: range[1], text: `: ${flowValue}`, top: false });
        return undefined;
      }
      // `? key` on a line of its own: `key:` there, the value after it.
      const at = past(range[2]);
      const from = lineStart(text, range[0]) + rootColumn;
      if (
        at === undefined ||
        !/^\? +$/.test(text.slice(from, range[0])) ||
        text.slice(range[0], range[1]).includes('\n')
      )
        return `its ${key} is written in a way it does not edit`;
      edits.push({ from, to: range[1], text: `${source.slice(range[0], range[1])}:${inline}`, top: false });
      if (lines !== undefined)
        edits.push({ from: at, to: at, text: asLines(text, at, withBreaks(nl, lines), nl), top: false });
      return undefined;
    }
    if (block) {
      const at = past(rootRange[2]);
      if (at === undefined) return 'its top-level mapping ends in a way it does not edit';
      edits.push({
        from: at,
        to: at,
        text: asLines(
          text,
          at,
          withBreaks(nl, `${' '.repeat(rootColumn)}${key}:${inline}${lines === undefined ? '' : `\n${lines}`}`),
          nl,
        ),
        top: true,
      });
      return undefined;
    }
    const last = root.items.at(-1);
    const end = ((last?.value ?? last?.key) as { range?: Range } | null | undefined)?.range?.[1];
    if (last !== undefined && end === undefined) return 'its top-level mapping ends in a way it does not edit';
    edits.push({
      from: end ?? rootRange[0] + 1,
      to: end ?? rootRange[0] + 1,
      text: `${last || addedFlow > 0 ? ', ' : ''}${flowText(key)}: ${flowValue}`,
      top: true,
    });
    addedFlow++;
    return undefined;
  };

  for (const [section, field] of SECTIONS) {
    const entry = { name: entries.name, [field]: entries[field] };
    // A new list under a top-level key: flush with it or indented, as the file's lists are.
    const blockList = entryText(YAML, entry, rootColumn + (flush ? 0 : 2), rootColumn + (flush ? 2 : 4), flush);
    const value = root.get(section, true) as unknown;
    if (value === undefined) {
      const why = setTop(section, '', blockList, `[${flowText(entry)}]`);
      if (why !== undefined) return why;
      continue;
    }
    // Anything but a list, an empty value or null: the Document way names the problem.
    const range = (value as { range?: Range } | null)?.range;
    if (range === undefined || (!YAML.isSeq(value) && !(YAML.isScalar(value) && value.value === null)))
      return `its ${section} is not a list it edits`;
    if (YAML.isScalar(value)) {
      if (value.anchor !== undefined || value.tag !== undefined) return `its ${section} carries an anchor or a tag`;
      if (!block) {
        if (range[0] === range[1]) return `its ${section} has no value to replace`;
        edits.push({ from: range[0], to: range[1], text: `[${flowText(entry)}]`, top: false });
        continue;
      }
      // `clusters: null # none` → `clusters: # none`, then the entry on the lines after.
      const at = past(range[2]);
      if (at === undefined) return `its ${section} is followed by more on its line`;
      let from = range[0];
      if (/^[ \t]*\r?$/.test(text.slice(range[1], at).replace(/\n$/, '')))
        while (text[from - 1] === ' ' || text[from - 1] === '\t') from--;
      edits.push({ from, to: range[1], text: '', top: false });
      edits.push({ from: at, to: at, text: asLines(text, at, withBreaks(nl, blockList), nl), top: false });
      continue;
    }
    const why = spliceList(file, value as YAMLSeq, entry, entries.name);
    if (typeof why === 'string') return why;
    if (why.found) {
      found++;
      const server = field === 'cluster' && YAML.isMap(why.found) ? why.found.getIn(['cluster', 'server']) : undefined;
      if (typeof server === 'string' && server !== entries.cluster['server']) replacedServer = server;
    }
  }

  if (use) {
    const value = root.get('current-context', true) as unknown;
    const plain = stringify11(YAML, entries.name, { lineWidth: 0 }).trimEnd();
    const name = block && !plain.includes('\n') ? plain : flowText(entries.name);
    if (value === undefined) {
      const why = setTop('current-context', ` ${name}`, undefined, name);
      if (why !== undefined) return why;
    } else if (!same(value, entries.name)) {
      const range = (value as { range?: Range } | null)?.range;
      const simple =
        YAML.isAlias(value) ||
        (YAML.isScalar(value) &&
          value.anchor === undefined &&
          value.tag === undefined &&
          value.type !== 'BLOCK_LITERAL' &&
          value.type !== 'BLOCK_FOLDED');
      if (range === undefined || !simple) return 'its current-context is written in a way it does not edit';
      // An empty value sits where the line goes on (`current-context:   # c`): spaces around the name.
      const before = range[0] === range[1] && text[range[0] - 1] !== ' ' && text[range[0] - 1] !== '\t' ? ' ' : '';
      const after = range[0] === range[1] && text[range[0]] === '#' ? ' ' : '';
      edits.push({ from: range[0], to: range[1], text: `${before}${name}${after}`, top: false });
    }
  }

  if (gone.length > 0 && aliasInto(YAML, doc, gone))
    return 'an alias elsewhere refers to an anchor inside an entry it replaces';
  // One pass over the text, the edits in order; at one offset, list entries before top-level keys.
  const ordered = edits
    .map((edit, index) => ({ ...edit, index }))
    .sort((a, b) => a.from - b.from || Number(a.top) - Number(b.top) || a.index - b.index);
  const parts: string[] = [];
  let copied = 0;
  for (const edit of ordered) {
    if (edit.from < copied) return 'its entries overlap in a way it does not edit';
    parts.push(source.slice(copied, edit.from), edit.text);
    copied = edit.to;
  }
  parts.push(source.slice(copied));
  return {
    text: parts.join(''),
    outcome: found > 0 ? 'updated' : 'added',
    ...(replacedServer !== undefined ? { replacedServer } : {}),
  };
}

/** What the edits of one list need of the file. */
interface File {
  YAML: YamlModule;
  text: string;
  nameOf: NameOf;
  /** Whether a node is the value, written so that kubectl reads it as that. */
  same: (node: unknown, value: unknown) => boolean;
  /** pastLine in this text, before the spaces at its end (spacesAtEnd). */
  past: (end: number) => number | undefined;
  flush: boolean;
  nl: string;
  edits: Edit[];
  gone: unknown[];
}

/**
 * The edits of one list: the first entry of our name replaced where it is (flow text for a flow
 * entry or list, block lines for a block entry), the others of that name removed (kubectl refuses
 * two), or ours added after the last entry. Returns the entry it replaced, or why it cannot.
 */
function spliceList(
  file: File,
  list: YAMLSeq,
  entry: Record<string, unknown>,
  name: string,
): { found?: Node } | string {
  const { YAML, text, flush, nl, edits, gone } = file;
  const items = list.items as unknown[];
  const listRange = list.range as Range;
  const named = items.flatMap((item, index) => (file.nameOf(item) === name ? [index] : []));
  // Ours as kubectl would read it already (a rewrite wrote it in the yaml library's style, not this
  // one's): left as it stands, so that a second merge of the same entries changes nothing.
  if (named.length === 1 && file.same(items[named[0]!], entry)) return { found: items[named[0]!] as Node };
  // What the edits below cut is the entry's range: its anchor or tag would stand before it, left over.
  for (const index of named) {
    const item = items[index] as Node;
    if (item.anchor !== undefined || item.tag !== undefined || item.range == null)
      return 'an entry it replaces carries an anchor or a tag';
  }
  const rangeOf = (index: number) => (items[index] as { range?: Range | null } | null | undefined)?.range ?? undefined;
  if (named.length === 0) {
    const last = rangeOf(items.length - 1);
    if (list.flow) {
      const at = last ? last[1] : listRange[0] + 1;
      if (!last && text[listRange[0]] !== '[') return 'a list it adds to starts in a way it does not edit';
      edits.push({ from: at, to: at, text: `${last ? ', ' : ''}${flowText(entry)}`, top: false });
      return {};
    }
    const dash = listRange[0] - lineStart(text, listRange[0]);
    const at = last ? file.past(last[2]) : undefined;
    if (at === undefined || text[listRange[0]] !== '-' || !/^ *$/.test(text.slice(listRange[0] - dash, listRange[0])))
      return 'a list it adds to is written in a way it does not edit';
    edits.push({
      from: at,
      to: at,
      text: asLines(text, at, withBreaks(nl, entryText(YAML, entry, dash, dash + 2, flush)), nl),
      top: false,
    });
    return {};
  }
  for (const [n, index] of named.entries()) {
    const item = items[index] as Node;
    const range = item.range as Range;
    gone.push(item);
    if (n === 0 && (list.flow || (YAML.isMap(item) && item.flow))) {
      // A flow entry is replaced by flow text where it stands, whatever is around it on its lines.
      if (text[range[0]] !== '{') return 'an entry it replaces is written in a way it does not edit';
      edits.push({ from: range[0], to: range[1], text: flowText(entry), top: false });
    } else if (list.flow) {
      // A later one of the name goes with the comma before it.
      const before = rangeOf(index - 1);
      if (before === undefined) return 'an entry it replaces is written in a way it does not edit';
      edits.push({ from: before[1], to: range[1], text: '', top: false });
    } else {
      // A block entry whose dash starts its line: replaced or removed up to its line's end. (Only
      // here is its line start looked for: in a flow list on one line, each look went back to the start.)
      const prefix = text.slice(lineStart(text, range[0]), range[0]);
      const past = file.past(range[2]);
      if (past === undefined || !/^ *- +$/.test(prefix))
        return 'an entry it replaces is written in a way it does not edit';
      if (n === 0)
        edits.push({
          from: range[0],
          to: past,
          text: `${withBreaks(nl, blockBody(YAML, entry, prefix.length, flush))}${breakBefore(text, past)}`,
          top: false,
        });
      else edits.push({ from: range[0] - prefix.length, to: past, text: '', top: false });
    }
  }
  return { found: items[named[0]!] as Node };
}
