// `kubeconfig --merge`: the cluster, user and context written into an existing kubeconfig the way
// `aws eks update-kubeconfig` does. Entries of the same names are replaced in place, everything else
// keeps its text byte for byte; a second merge of the same thing changes nothing.
//
// Two ways, one result. A kubeconfig as kubectl and the cloud CLIs write it (block style, no anchors)
// is edited as text: one linear scan finds the top-level keys and the entries of clusters, users and
// contexts by their lines, and only the lines of our entries change. The yaml parser needs seconds
// for the 2 MB of a 1,000-cluster kubeconfig; the scan takes milliseconds (bench/kubeconfig-merge.mjs).
// Anything else (flow style, anchors, tags, several documents, tabs, a scalar that goes on past its
// line, a `name` key spelled another way) is parsed by the yaml library's Document API, under a token
// bound that grows with the file: the scan never reads a file otherwise than the parser would. Its
// text is then edited where the parser found our entries (kubeconfig-splice.ts); only a shape that
// cannot be edited so is rewritten from the Document, and the caller says so.
import { UsageError } from '../../errors.js';
import { MAX_YAML_TOKENS, tooManyYamlTokens } from '../../config/load.js';
import { countSpaces, plainValue, unclosedFlow, withoutComment } from './kubeconfig-lines.js';
import { aliasesInto, entryText, SECTIONS, spliceDocument, type MergeEntries, type Merged } from './kubeconfig-splice.js';

type YamlModule = typeof import('yaml');

export type { Merged } from './kubeconfig-splice.js';

/**
 * The fallback parser's bound: a kubeconfig has 10-20 bytes per YAML token (a base64 CA is one), so
 * one token per 8 bytes lets any real file through and refuses the dense ones whose parse outgrows
 * their size (30 000 keys of one flow mapping: 85 s).
 */
const BYTES_PER_TOKEN = 8;

/** The text of `existing` (undefined: no file yet) with the entries merged; `use` sets current-context. */
export function mergeKubeconfig(YAML: YamlModule, existing: string | undefined, entries: MergeEntries, use: boolean, where: string): Merged {
  const fresh = existing === undefined || existing.trim() === '';
  const scanned = fresh ? undefined : scan(existing);
  const merged = scanned ? mergeText(YAML, existing!, scanned, entries, use) : mergeDocument(YAML, fresh ? undefined : existing, entries, use, where);
  return merged.text === existing ? { text: merged.text, outcome: 'unchanged' } : merged;
}

/** The context names of a kubeconfig (shell completion): by the scan, else the parser under its bound; [] when neither reads it. */
export function contextNames(YAML: YamlModule, text: string): string[] {
  const scanned = scan(text);
  if (scanned) return (scanned.sections.get('contexts')?.items ?? []).flatMap((item) => (item.name === undefined ? [] : [item.name]));
  if (tooManyYamlTokens(YAML, text, Math.max(MAX_YAML_TOKENS, Math.ceil(text.length / BYTES_PER_TOKEN)))) return [];
  // Its own check of unique keys compares each key with every one before it (uniqueKeys: quadratic).
  const doc = YAML.parseDocument(text, { uniqueKeys: false });
  const list = doc.errors.length === 0 && YAML.isMap(doc.contents) ? doc.get('contexts', true) : undefined;
  if (!YAML.isSeq(list)) return [];
  return list.items.flatMap((item) => {
    const name = YAML.isMap(item) ? item.get('name') : undefined;
    return typeof name === 'string' ? [name] : [];
  });
}

// ---- The text way ----

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

interface Scanned {
  lines: Line[];
  text: string;
  keys: Map<string, { line: number; value: string }>;
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

/** The structure of a block-style kubeconfig, or undefined when it is not one the scan reads. */
function scan(text: string): Scanned | undefined {
  if (UNSCANNED.test(text)) return undefined;
  const lines: Line[] = [];
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const indent = countSpaces(text, start, end);
    const empty = indent === end - start || text[start + indent] === '#';
    lines.push({ start, end, indent, empty });
    start = end + 1;
  }
  const keys = new Map<string, { line: number; value: string }>();
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
    keys.set(key[1]!, { line: i, value: withoutComment(key[2] ?? '') });
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
  for (let i = keyLine + 1 + body; i < end; i++) {
    const line = lines[i]!;
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
    // `? name`): the scan would miss our entry and add a second of its name, which kubectl refuses.
    if (own !== undefined && !name && /^(?:["'?:]|name[ \t]*:)/.test(own)) return undefined;
    if (name) {
      const parsed = plainValue(name[1] ?? '');
      if (parsed === undefined || item.name !== undefined || continued(lines, i, content)) return undefined;
      item.name = parsed;
    }
    const server = /^server:[ ]+(.*)$/.exec(text.slice(at, line.end));
    if (server && line.indent > content) item.server = plainValue(server[1]!);
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

function mergeText(YAML: YamlModule, existing: string, scanned: Scanned, entries: MergeEntries, use: boolean): Merged {
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
    const line = `current-context: ${YAML.stringify(entries.name, { lineWidth: 0 }).trimEnd()}`;
    const current = scanned.keys.get('current-context');
    if (current) edits.push({ from: lines[current.line]!.start, to: lines[current.line]!.end, text: line });
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

// ---- The Document way ----

function mergeDocument(YAML: YamlModule, existing: string | undefined, entries: MergeEntries, use: boolean, where: string): Merged {
  const empty = { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [], 'current-context': '' };
  const fresh = existing === undefined;
  // The YAML parser's time grows faster than the text (config/load.ts): a bound that grows with the file.
  const bound = fresh ? 0 : Math.max(MAX_YAML_TOKENS, Math.ceil(existing.length / BYTES_PER_TOKEN));
  if (!fresh && tooManyYamlTokens(YAML, existing, bound)) {
    throw new UsageError('KUBECONFIG_TOO_LARGE', `${where} is too large to merge into: more than ${bound} YAML tokens; choose another file with --merge <file>`);
  }
  // The parser's check of unique keys compares each key of a map with every one before it: 40 000
  // keys took 74 s. The same check, by a set per map, is below.
  const lineCounter = new YAML.LineCounter();
  const doc = fresh ? new YAML.Document(empty) : YAML.parseDocument(existing, { keepSourceTokens: false, uniqueKeys: false, lineCounter });
  // Only comments, or `---`: kubectl reads an empty config; so do we, and the comments stay.
  if (!fresh && doc.errors.length === 0 && (doc.contents === null || (YAML.isScalar(doc.contents) && doc.contents.value === null))) doc.contents = doc.createNode(empty);
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    const problem = error.code === 'MULTIPLE_DOCS' ? 'it holds more than one document' : error.message.split('\n')[0]!.replace(/:$/, '');
    throw new UsageError('KUBECONFIG_INVALID', `${where} is not valid YAML (${problem}); fix it or choose another file with --merge <file>`);
  }
  const twice = fresh ? undefined : keyTwice(YAML, doc);
  if (twice !== undefined) {
    const { line, col } = lineCounter.linePos(twice);
    throw new UsageError('KUBECONFIG_INVALID', `${where} is not valid YAML (Map keys must be unique at line ${line}, column ${col}); fix it or choose another file with --merge <file>`);
  }
  if (!fresh && !YAML.isMap(doc.contents)) throw new UsageError('KUBECONFIG_INVALID', `${where} is not a kubeconfig (not a mapping); fix it or choose another file with --merge <file>`);
  // The text edited where the parser found things; the Document rewritten only when that cannot be.
  const spliced = fresh ? undefined : spliceDocument(YAML, doc, existing, entries, use);
  if (typeof spliced === 'object') return spliced;
  let found = 0;
  let replacedServer: string | undefined;
  const budget = { left: existing?.length ?? 0 };
  for (const [section, field] of SECTIONS) {
    let list = doc.get(section, true);
    if (list === undefined || list === null || (YAML.isScalar(list) && list.value === null)) {
      doc.set(section, doc.createNode([]));
      list = doc.get(section, true);
    }
    if (!YAML.isSeq(list)) throw new UsageError('KUBECONFIG_INVALID', `${where}: ${section} is not a list; fix it or choose another file with --merge <file>`);
    const node = doc.createNode({ name: entries.name, [field]: entries[field] });
    const named = (item: unknown) => YAML.isMap(item) && item.get('name') === entries.name;
    const at = list.items.findIndex(named);
    if (at >= 0) {
      found++;
      const old = list.items[at] as import('yaml').YAMLMap;
      const server = field === 'cluster' ? (old.getIn(['cluster', 'server']) as unknown) : undefined;
      if (typeof server === 'string' && server !== entries.cluster['server']) replacedServer = server;
      // An alias elsewhere of an anchor in what goes keeps what it meant: a copy of it, in its place.
      keepAliasesOf(YAML, doc, list.items.filter(named), budget, where);
      // The comment above a replaced entry stays with it.
      if (old.commentBefore) node.commentBefore = old.commentBefore;
      // kubectl refuses a file with two entries of one name: what we own is the one entry.
      list.items = list.items.filter((item, index) => index === at || !named(item));
      list.items[at] = node;
    } else list.items.push(node);
  }
  if (use) doc.set('current-context', entries.name);
  // kubectl writes lists flush with their key; keep whichever way the file has them.
  const indentSeq = fresh ? false : !/^[A-Za-z-]+:[ \t]*\r?\n-[ \t]/m.test(existing);
  const text = doc.toString({ indentSeq, lineWidth: 0 });
  return { text, outcome: found > 0 ? 'updated' : 'added', ...(replacedServer !== undefined ? { replacedServer } : {}), ...(spliced !== undefined ? { rewritten: spliced } : {}) };
}

/** The offset of the first key that a map of `doc` holds twice, found in one pass (a set per map). */
function keyTwice(YAML: YamlModule, doc: import('yaml').Document): number | undefined {
  let at: number | undefined;
  YAML.visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = YAML.isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          at = (pair.key as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
          return YAML.visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return at;
}

/**
 * Each alias elsewhere of a node inside `gone` becomes a copy of that node's value (aliases in it
 * resolved under the parser's alias bound, its anchors dropped), in one walk (aliasesInto). The
 * copies together may not outgrow the file (`budget`, in characters of JSON): 2,000 aliases of one
 * 20 kB entry wrote 40 MB.
 */
function keepAliasesOf(YAML: YamlModule, doc: import('yaml').Document, gone: unknown[], budget: { left: number }, where: string): void {
  const tooFar = () => new UsageError('KUBECONFIG_INVALID', `${where}: an alias elsewhere refers to an anchor inside an entry being replaced, and expands too far; remove the alias, or choose another file with --merge <file>`);
  const copies = new Map<unknown, { value: unknown; size: number }>();
  aliasesInto(YAML, doc, gone, (target) => {
    let copy = copies.get(target);
    if (copy === undefined) {
      // Its value with every alias inside it resolved: a clone would keep aliases that the walk would
      // then expand again, exponentially for chained anchors. (A value that refers to itself has no JSON.)
      try {
        const value = target.toJS(doc, { maxAliasCount: 50 });
        copy = { value, size: JSON.stringify(value)?.length ?? 0 };
      } catch {
        throw tooFar();
      }
      copies.set(target, copy);
    }
    budget.left -= copy.size;
    if (budget.left < 0) throw tooFar();
    // Written out whole: anchors for repeated parts would each have the document searched for free names.
    return doc.createNode(copy.value, { aliasDuplicateObjects: false });
  });
}
