// `kubeconfig --merge`: the cluster, user and context written into an existing kubeconfig the way
// `aws eks update-kubeconfig` does. Entries of the same names are replaced in place, everything else
// keeps its text byte for byte; a second merge of the same thing changes nothing.
//
// One way, with one fallback. The file is parsed (under a token bound that grows with it: read.ts),
// and its text is edited where the parser found our entries (splice.ts); only what cannot be edited
// so is rewritten from the Document, and the caller says so. Either result is parsed back and must
// read as what the merge means (check.ts); when even the rewrite would read otherwise, nothing is
// written (exit 2). Every parse reads the lines as kubectl does (read.ts: U+0085, U+2028, U+2029).
import { UsageError } from '../errors.js';
import { expectation, keyTwice, misread } from './check.js';
import { nameReader, type NameOf } from './names.js';
import { asKubectlReads, emptyDocument, notValidYaml, pastTokenBound } from './read.js';
import { valueIds } from './values.js';
import { escape11, quoteFor11 } from './yaml11.js';
import { SECTIONS, spliceDocument, type MergeEntries, type Merged, type YamlModule } from './splice.js';
import { aliasesInto } from './aliases.js';

export type { Merged } from './splice.js';

type Document = import('yaml').Document;

/** What a new kubeconfig holds, and what kubectl reads a file of only comments as. */
const EMPTY = { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [], 'current-context': '' };

const REMEDY = 'fix it or choose another file with --merge <file>';

/** The text of `existing` (undefined: no file yet) with the entries merged; `use` sets current-context. */
export function mergeKubeconfig(
  YAML: YamlModule,
  existing: string | undefined,
  entries: MergeEntries,
  use: boolean,
  where: string,
): Merged {
  const fresh = existing === undefined || existing.trim() === '';
  const lines = fresh ? undefined : asKubectlReads(existing);
  const doc = lines === undefined ? fresh11(YAML, EMPTY) : readKubeconfig(YAML, lines, where);
  const nameOf = nameReader(YAML, doc);
  if (!fresh) refuseUnclear(YAML, doc, nameOf, entries.name, where);
  // Read before any way is tried: the rewrite changes the Document.
  const ids = valueIds(YAML);
  const expected = expectation(YAML, doc, nameOf, ids, entries, use, where);
  const done = (merged: Merged): Merged =>
    merged.text === existing ? { text: merged.text, outcome: 'unchanged' } : merged;
  let why: string | undefined;
  if (lines !== undefined) {
    const spliced = spliceDocument(YAML, doc, lines, existing!, entries, use, nameOf);
    if (typeof spliced === 'string') why = spliced;
    else {
      const wrong = misread(YAML, spliced.text, expected, ids);
      if (wrong === undefined) return done(spliced);
      why = `an edit in place would change what it says: ${wrong}`;
    }
    // The rewrite writes the text the parser read, where those were line feeds: a quoted or block
    // scalar holding one would change to kubectl, and the check, reading them as line feeds, could not tell.
    if (lines !== existing) throw unsafe(where, `${why}, and a rewrite would not keep its U+0085, U+2028 or U+2029`);
  }
  const rewritten = rewrite(YAML, doc, fresh ? undefined : existing, entries, use, nameOf, where);
  const wrong = misread(YAML, rewritten.text, expected, ids);
  if (wrong !== undefined) throw unsafe(where, wrong);
  return done(why === undefined ? rewritten : { ...rewritten, rewritten: why });
}

function unsafe(where: string, why: string): UsageError {
  return new UsageError(
    'KUBECONFIG_UNSAFE_MERGE',
    `cannot merge into ${where} without changing what it says (${why}); nothing was written: edit it by hand, or choose another file with --merge <file>`,
  );
}

/** The context names of a kubeconfig (shell completion), read under the merge's token bound; [] when it does not read. */
export function contextNames(YAML: YamlModule, text: string): string[] {
  const lines = asKubectlReads(text);
  if (pastTokenBound(YAML, lines) !== undefined) return [];
  // Its own check of unique keys compares each key with every one before it (uniqueKeys: quadratic).
  const doc = YAML.parseDocument(lines, { uniqueKeys: false });
  const list = doc.errors.length === 0 && YAML.isMap(doc.contents) ? doc.get('contexts', true) : undefined;
  if (!YAML.isSeq(list)) return [];
  const nameOf = nameReader(YAML, doc);
  return list.items.flatMap((item) => {
    const name = nameOf(item);
    return typeof name === 'string' ? [name] : [];
  });
}

/**
 * The file (its lines as kubectl reads them) as a Document: valid YAML, one document, a mapping (or
 * only comments: kubectl's empty config), no key twice. Parsed only under a token bound that grows
 * with it (read.ts): a kubeconfig may be anyone's, and the parser's work must stay bounded.
 */
function readKubeconfig(YAML: YamlModule, lines: string, where: string): Document {
  const bound = pastTokenBound(YAML, lines);
  if (bound !== undefined) {
    throw new UsageError(
      'KUBECONFIG_TOO_LARGE',
      `${where} is too large to merge into: more than ${bound} YAML tokens; choose another file with --merge <file>`,
    );
  }
  // The parser's check of unique keys compares each key of a map with every one before it: 40 000
  // keys took 74 s. The same check, by a set per map, is below.
  const lineCounter = new YAML.LineCounter();
  const doc: Document = YAML.parseDocument(lines, { keepSourceTokens: false, uniqueKeys: false, lineCounter });
  if (doc.errors.length > 0) throw notValidYaml('KUBECONFIG_INVALID', where, doc, REMEDY);
  // Only comments, or `---`: kubectl reads an empty config; so do we, and the comments stay.
  if (emptyDocument(YAML, doc)) {
    doc.contents = doc.createNode(EMPTY);
    quoteFor11(YAML, doc.contents);
  }
  const twice = keyTwice(YAML, doc);
  if (twice !== undefined) {
    const { line, col } = lineCounter.linePos(twice);
    throw new UsageError(
      'KUBECONFIG_INVALID',
      `${where} is not valid YAML (Map keys must be unique at line ${line}, column ${col}); ${REMEDY}`,
    );
  }
  if (!YAML.isMap(doc.contents))
    throw new UsageError('KUBECONFIG_INVALID', `${where} is not a kubeconfig (not a mapping); ${REMEDY}`);
  return doc;
}

/** The Document way: the entries set in `doc` (changed), the whole file written from it. */
function rewrite(
  YAML: YamlModule,
  doc: Document,
  existing: string | undefined,
  entries: MergeEntries,
  use: boolean,
  nameOf: NameOf,
  where: string,
): Merged {
  let found = 0;
  let replacedServer: string | undefined;
  const budget = { left: existing?.length ?? 0 };
  for (const [section, field] of SECTIONS) {
    let list = doc.get(section, true);
    if (list === undefined || list === null || (YAML.isScalar(list) && list.value === null)) {
      doc.set(section, doc.createNode([]));
      list = doc.get(section, true);
    }
    if (!YAML.isSeq(list)) throw new UsageError('KUBECONFIG_INVALID', `${where}: ${section} is not a list; ${REMEDY}`);
    const node = doc.createNode({ name: entries.name, [field]: entries[field] });
    quoteFor11(YAML, node);
    // Read before the copies below change the Document.
    const ours = list.items.map((item) => nameOf(item) === entries.name);
    const named = (_item: unknown, index: number) => ours[index]!;
    const at = ours.indexOf(true);
    if (at >= 0) {
      found++;
      const old = list.items[at] as import('yaml').Node;
      const server = field === 'cluster' && YAML.isMap(old) ? (old.getIn(['cluster', 'server']) as unknown) : undefined;
      if (typeof server === 'string' && server !== entries.cluster['server']) replacedServer = server;
      // An alias elsewhere of an anchor in what goes keeps what it meant: a copy of it, in its place.
      keepAliasesOf(YAML, doc, list.items.filter(named), budget, where);
      // The comment above a replaced entry stays with it.
      if (old.commentBefore) node.commentBefore = old.commentBefore;
      // kubectl refuses a file with two entries of one name: what we own is the one entry.
      list.items = list.items.filter((item, index) => index === at || !named(item, index));
      list.items[at] = node;
    } else list.items.push(node);
  }
  if (use) {
    doc.set('current-context', entries.name);
    // A scalar the file had keeps its style, plain too: the name may need quotes there.
    quoteFor11(YAML, doc.get('current-context', true) as import('yaml').Node);
  }
  // kubectl writes lists flush with their key; keep whichever way the file has them.
  const indentSeq = existing === undefined ? false : !/^[A-Za-z-]+:[ \t]*\r?\n-[ \t]/m.test(existing);
  // The yaml library writes no byte order mark; the file keeps the one it had.
  const text = `${existing?.startsWith('\ufeff') ? '\ufeff' : ''}${escape11(doc.toString({ indentSeq, lineWidth: 0 }))}`;
  return {
    text,
    outcome: found > 0 ? 'updated' : 'added',
    ...(replacedServer !== undefined ? { replacedServer } : {}),
  };
}

/**
 * An entry whose `name` and merge key (<<) disagree, one of them ours: kubectl reads whichever comes
 * later in it, the YAML spec the `name`. Replacing it or adding another could leave two of our name
 * to kubectl, so neither is done.
 */
function refuseUnclear(YAML: YamlModule, doc: Document, nameOf: NameOf, name: string, where: string): void {
  for (const [section] of SECTIONS) {
    const list = doc.get(section, true);
    if (!YAML.isSeq(list)) continue;
    for (const [index, item] of list.items.entries()) {
      const read = nameOf(item);
      if (typeof read === 'object' && read.unclear.includes(name)) {
        const [own, merged] = read.unclear.map((one) => JSON.stringify(one));
        throw new UsageError(
          'KUBECONFIG_INVALID',
          `${where}: entry ${index + 1} of ${section} is named ${own} and, through a merge key (<<), ${merged}; give it one name, or choose another file with --merge <file>`,
        );
      }
    }
  }
}

/** A new Document of `value`, its strings quoted where YAML 1.1 would read them otherwise. */
function fresh11(YAML: YamlModule, value: unknown): Document {
  const doc = new YAML.Document(value);
  quoteFor11(YAML, doc);
  return doc;
}

/**
 * Each alias elsewhere of a node inside `gone` becomes a copy of that node's value (aliases in it
 * resolved under the parser's alias bound, its anchors dropped), in one walk (aliasesInto). The
 * copies together may not outgrow the file (`budget`, in characters of JSON): 2,000 aliases of one
 * 20 kB entry wrote 40 MB.
 */
function keepAliasesOf(
  YAML: YamlModule,
  doc: Document,
  gone: unknown[],
  budget: { left: number },
  where: string,
): void {
  const tooFar = () =>
    new UsageError(
      'KUBECONFIG_INVALID',
      `${where}: an alias elsewhere refers to an anchor inside an entry being replaced, and expands too far; remove the alias, or choose another file with --merge <file>`,
    );
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
    const node = doc.createNode(copy.value, { aliasDuplicateObjects: false });
    quoteFor11(YAML, node);
    return node;
  });
}
