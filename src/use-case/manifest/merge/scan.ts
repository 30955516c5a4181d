// kubeconfig --merge's text way (merge/merge.ts): a kubeconfig as kubectl and the cloud CLIs
// write it (block style, no anchors) is edited as text. One linear scan finds the top-level keys and
// the entries of clusters, users and contexts by their lines, and only the lines of our entries
// change. Anything the scan does not read as the yaml parser would is left to the parser (undefined).
import { countSpaces, plainValue, trailingComment, unclosedFlow, withoutComment } from './lines.js';
import { entryText, SECTIONS, type MergeEntries, type Merged, type YamlModule } from './splice.js';
import { stringify11 } from './yaml11.js';

interface Line {
  start: number;
  /** Offset of its newline (or the end of the text). */
  end: number;
  indent: number;
  /** Blank, or only a comment. */
  empty: boolean;
}

interface Item {
  /** First and last line (inclusive) of the entry; comments after it are not its. */
  first: number;
  last: number;
  name: string | undefined;
  server: string | undefined;
}

interface Section {
  keyLine: number;
  /** The line after the section's last line. */
  end: number;
  kind: 'list' | 'empty';
  dash: number;
  content: number;
  items: Item[];
}

export interface Scanned {
  lines: Line[];
  text: string;
  keys: Map<string, { line: number; value: string; comment: string }>;
  sections: Map<string, Section>;
  /** Lists written flush with their key (kubectl's style) or indented. */
  flush: boolean;
}

// What the scan does not read: anchors, aliases, tags, complex keys, directives and document
// markers, tabs and CR line ends. The Document API reads those. Leading blanks are `[ \t]*`, never
// `\s*`: that crosses line ends, and from every line start of a run of blank lines it went to the run's
// end (quadratic: 80 000 blank lines took 13 s).
const UNSCANNED = /(^|[\s[{,:-])[&*!][^\s]|^[ \t]*\?(\s|$)|^(---|\.\.\.|%)|^\t|\r/m;
const TOP_KEY = /^([A-Za-z_][\w.-]*):(?:[ ]+(.*))?$/;
const NAME = /^name:(?:[ ]+(.*))?$/;
const BLOCK_SCALAR = /(?:^|:[ ]+|-[ ]+)[|>]([1-9+-]{0,2})[ ]*(?:#.*)?$/;

/** The structure of a block-style kubeconfig, or undefined when it is not one the scan reads. */
export function scan(text: string): Scanned | undefined {
  if (UNSCANNED.test(text)) return undefined;
  // A last line of only spaces and no line break: whether it is text of a block scalar ending there,
  // or goes before the lines added at the end, the parser's nodes tell (merge/splice.ts).
  if (/^ +$/.test(text.slice(text.lastIndexOf('\n') + 1))) return undefined;
  const lines: Line[] = [];
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const indent = countSpaces(text, start, end);
    const empty = indent === end - start || text[start + indent] === '#';
    lines.push({ start, end, indent, empty });
    start = end + 1;
  }
  const keys = new Map<string, { line: number; value: string; comment: string }>();
  const order: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.empty && unclosedFlow(text, line.start + line.indent, line.end)) return undefined;
    if (line.empty || line.indent > 0) continue;
    // A list flush with its key (kubectl's style): its entries are read with their section.
    if (text[line.start] === '-') {
      if (order.length === 0) return undefined;
      continue;
    }
    const key = TOP_KEY.exec(text.slice(line.start, line.end));
    if (!key || keys.has(key[1]!)) return undefined;
    keys.set(key[1]!, { line: i, value: withoutComment(key[2] ?? ''), comment: trailingComment(key[2] ?? '') });
    order.push(i);
  }
  if (keys.size === 0) return undefined;
  const sections = new Map<string, Section>();
  let flush = true;
  for (const [name] of SECTIONS) {
    const key = keys.get(name);
    if (!key) continue;
    const end = order.find((line) => line > key.line) ?? lines.length;
    const section = scanSection(text, lines, key.line, end, key.value);
    if (!section) return undefined;
    if (section.kind === 'list' && section.dash > 0) flush = false;
    sections.set(name, section);
  }
  // current-context is rewritten as one line: a value that goes on past it is left to the parser.
  const current = keys.get('current-context');
  if (current && (plainValue(current.value) === undefined || continued(lines, current.line, 0))) return undefined;
  return { lines, text, keys, sections, flush };
}

function scanSection(text: string, lines: Line[], keyLine: number, end: number, value: string): Section | undefined {
  const body = lines.slice(keyLine + 1, end).findIndex((line) => !line.empty);
  if (value !== '' || body < 0) {
    // `clusters: []`, `clusters: null`, `clusters:` with nothing under it: an empty list.
    if (!['', '[]', 'null', '~'].includes(value) || body >= 0) return undefined;
    return { keyLine, end, kind: 'empty', dash: 0, content: 2, items: [] };
  }
  const firstLine = lines[keyLine + 1 + body]!;
  const dash = firstLine.indent;
  const items: Item[] = [];
  let content = dash + 2;
  // A block scalar being read: the column of its key, of its text (its first line that is not blank
  // says), and whether it keeps its final line breaks (|+).
  let scalar: { key: number; text: number | undefined; keep: boolean } | undefined;
  for (let i = keyLine + 1 + body; i < end; i++) {
    const line = lines[i]!;
    if (scalar !== undefined) {
      // Its lines: those indented past its key (a `#` there is its text, not a comment), and blank
      // ones. Spaces past its text's column are text. A kept one owns the blank lines that end it,
      // each with its line break (the text's last line has none): an entry added after it goes after
      // them, or the value loses them.
      const length = line.end - line.start;
      const blank = line.indent === length && (scalar.text === undefined || length <= scalar.text);
      if (blank || line.indent > scalar.key) {
        if (!blank) scalar.text ??= line.indent;
        if (!blank || (scalar.keep && line.end < text.length)) items.at(-1)!.last = i;
        continue;
      }
      scalar = undefined;
    }
    if (line.empty) continue;
    const at = line.start + line.indent;
    // A flow collection over several lines, or an entry that is a block scalar: lines inside them
    // that look like `name: ours` are not the entry's name (`- {name: ours, …}` is, unseen).
    if (unclosedFlow(text, at, line.end) || (line.indent === dash && /^-[ ]+[|>{[]/.test(text.slice(at, line.end)))) return undefined;
    if (line.indent === dash && text[at] === '-' && text[at + 1] === ' ') {
      content = dash + 1 + countSpaces(text, at + 1, line.end);
      items.push({ first: i, last: i, name: undefined, server: undefined });
    } else if (line.indent <= dash || items.length === 0) return undefined;
    const item = items.at(-1)!;
    item.last = i;
    // The entry's own keys are at its content column: the first line's after `- `, or a line of that indent.
    const own = line.indent === dash ? text.slice(at + (content - dash), line.end) : line.indent === content ? text.slice(at, line.end) : undefined;
    const name = own === undefined ? undefined : NAME.exec(own);
    // A key the parser could read as `name` though NAME does not (`name :`, `name:<tab>`, `"name":`,
    // `? name`), or a merge key (`<<: {name: ours}`, whose name kubectl reads as the entry's): the
    // scan would miss our entry and add a second of its name, which kubectl refuses.
    if (own !== undefined && !name && /^(?:["'?:<]|name[ \t]*:)/.test(own)) return undefined;
    if (name) {
      const parsed = plainValue(name[1] ?? '');
      if (parsed === undefined || item.name !== undefined || continued(lines, i, content)) return undefined;
      item.name = parsed;
    }
    const server = /^server:[ ]+(.*)$/.exec(text.slice(at, line.end));
    if (server && line.indent > content) item.server = plainValue(server[1]!);
    // A value that is a block scalar (`key: |+`, `- >-`, a comment after it): its key's column is
    // past the line's dashes.
    const header = BLOCK_SCALAR.exec(text.slice(at, line.end));
    // An indentation indicator (|2) sets its text's column from the parent's, which the parser knows.
    if (header && /\d/.test(header[1]!)) return undefined;
    if (header) scalar = { key: line.indent + /^(?:-[ ]+)*/.exec(text.slice(at, line.end))![0].length, text: undefined, keep: header[1]!.includes('+') };
  }
  return { keyLine, end, kind: 'list', dash, content, items };
}

/**
 * Whether the scalar on line `at` (its key at column `indent`) goes on: a plain scalar continues on
 * the next lines indented past its key (`name: a` then `    b` is the name "a b"), which a one-line
 * edit or match would misread. The next line that is not blank or a comment decides.
 */
function continued(lines: Line[], at: number, indent: number): boolean {
  for (let i = at + 1; i < lines.length; i++) if (!lines[i]!.empty) return lines[i]!.indent > indent;
  return false;
}

interface Edit {
  from: number;
  to: number;
  text: string;
}

export function mergeText(YAML: YamlModule, existing: string, scanned: Scanned, entries: MergeEntries, use: boolean): Merged {
  const { lines, text } = scanned;
  const edits: Edit[] = [];
  const appended: string[] = [];
  let found = 0;
  let replacedServer: string | undefined;
  for (const [section, field] of SECTIONS) {
    const entry = { name: entries.name, [field]: entries[field] };
    const there = scanned.sections.get(section);
    if (!there) {
      appended.push(`${section}:\n${entryText(YAML, entry, 0, 2, scanned.flush)}`);
      continue;
    }
    if (there.kind === 'empty') {
      const key = lines[there.keyLine]!;
      edits.push({ from: key.start, to: key.end, text: `${section}:\n${entryText(YAML, entry, 0, 2, scanned.flush)}` });
      continue;
    }
    const same = there.items.filter((item) => item.name === entries.name);
    if (same.length > 0) {
      found++;
      if (field === 'cluster' && same[0]!.server !== undefined && same[0]!.server !== entries.cluster['server']) replacedServer = same[0]!.server;
    }
    // The first entry of the name is replaced where it is; kubectl refuses a file with two of one name.
    for (const [index, item] of same.entries()) {
      const from = lines[item.first]!.start;
      const to = lines[item.last]!.end;
      edits.push({ from, to, text: index === 0 ? entryText(YAML, entry, there.dash, there.content, scanned.flush) : '' });
      // A removed duplicate takes its line end with it.
      if (index > 0) edits.at(-1)!.to = Math.min(text.length, to + 1);
    }
    if (same.length === 0) {
      const last = lines[there.items.at(-1)!.last]!;
      edits.push({ from: last.end, to: last.end, text: `\n${entryText(YAML, entry, there.dash, there.content, scanned.flush)}` });
    }
  }
  if (use) {
    const line = `current-context: ${stringify11(YAML, entries.name, { lineWidth: 0 }).trimEnd()}`;
    const current = scanned.keys.get('current-context');
    // Its comment stays (`current-context: lab  # switch with kubectl config use-context`).
    if (current) edits.push({ from: lines[current.line]!.start, to: lines[current.line]!.end, text: `${line}${current.comment}` });
    else appended.push(line);
  }
  // One pass over the text, the edits in order (they never overlap): splicing each into the whole
  // text made a file of many duplicates cost the square of its size (80,000 of them: 100 s). Of
  // two edits at one place, the later one's text comes first, as splicing from the end gave it.
  const ordered = edits.map((edit, index) => ({ ...edit, index })).sort((a, b) => a.from - b.from || b.index - a.index);
  const parts: string[] = [];
  let copied = 0;
  for (const edit of ordered) {
    parts.push(existing.slice(copied, edit.from), edit.text);
    copied = edit.to;
  }
  parts.push(existing.slice(copied));
  let out = parts.join('');
  if (appended.length > 0) out = `${out}${out.endsWith('\n') ? '' : '\n'}${appended.join('\n')}\n`;
  return { text: out, outcome: found > 0 ? 'updated' : 'added', ...(replacedServer !== undefined ? { replacedServer } : {}) };
}
