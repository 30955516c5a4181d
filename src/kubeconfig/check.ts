// The safety net of kubeconfig --merge: before the merged text is written over the user's kubeconfig,
// it is parsed back and must read as exactly what the merge meant:
// the same top-level keys as before and the ones it adds, each of them as it was but for the lists it
// edits and current-context; in clusters, users and contexts every entry it did not touch as it was
// and in its place, ours once, where the first of our name was or at the end, written so that
// kubectl's YAML 1.1 reads it as the yaml library does; no key twice in a mapping. The edit in place
// and the rewrite are checked alike: one reading of the result (its lines as kubectl reads them,
// read.ts), and ids (values.ts) to compare it with the reading of the file, both linear.
import type { Document, Node, YAMLMap } from 'yaml';
import { UsageError } from '../errors.js';
import { nameReader, type NameOf } from './names.js';
import { asKubectlReads, yamlProblem } from './read.js';
import type { ValueIds } from './values.js';
import { SECTIONS, type MergeEntries } from './splice.js';
import { readsSameIn11 } from './yaml11.js';

type YamlModule = typeof import('yaml');

/** What the merged kubeconfig must read as, in ids of one ValueIds table. */
export interface Expected {
  name: string;
  /** Whether current-context is ours (--use): then written so that kubectl reads it as ours, too. */
  use: boolean;
  /** Each top-level key (a key that is no string: by its id) and the id of its value. */
  top: Map<string | number, number>;
  /** The ids of the entries of each list, ours at `ours`. */
  lists: Map<string, { ids: number[]; ours: number }>;
}

/** The key of a top-level pair, compared across documents: a string as it is, anything else by its id (a number). */
function keyOf(YAML: YamlModule, key: unknown, idOf: (node: unknown) => number): string | number {
  return YAML.isScalar(key) && typeof key.value === 'string' ? key.value : idOf(key);
}

/**
 * What merging `entries` into `doc` (a checked parse of the file: a mapping, no key twice) must give.
 * Read before either way edits anything: the Document rewrite changes `doc`.
 */
export function expectation(
  YAML: YamlModule,
  doc: Document,
  nameOf: NameOf,
  ids: ValueIds,
  entries: MergeEntries,
  use: boolean,
  where: string,
): Expected {
  const idOf = ids.inDocument(doc);
  const root = doc.contents as YAMLMap;
  const top = new Map<string | number, number>();
  const values = new Map<string | number, unknown>();
  for (const pair of root.items) {
    const key = keyOf(YAML, pair.key, idOf);
    top.set(key, idOf(pair.value));
    values.set(key, pair.value);
  }
  const lists = new Map<string, { ids: number[]; ours: number }>();
  for (const [section, field] of SECTIONS) {
    const ours = ids.ofValue({ name: entries.name, [field]: entries[field] });
    const list = values.get(section);
    if (list !== undefined && list !== null && !YAML.isSeq(list) && !(YAML.isScalar(list) && list.value === null)) {
      throw new UsageError(
        'KUBECONFIG_INVALID',
        `${where}: ${section} is not a list; fix it or choose another file with --merge <file>`,
      );
    }
    const items = YAML.isSeq(list) ? list.items : [];
    const kept: number[] = [];
    let at = -1;
    for (const item of items) {
      if (nameOf(item) !== entries.name) kept.push(idOf(item));
      else if (at < 0) at = kept.push(ours) - 1;
    }
    if (at < 0) at = kept.push(ours) - 1;
    lists.set(section, { ids: kept, ours: at });
    top.set(section, ids.ofValue(null));
  }
  if (use) top.set('current-context', ids.ofValue(entries.name));
  return { name: entries.name, use, top, lists };
}

/**
 * Why `text` does not read as `expected`, or undefined when it does. No token bound: the text is the
 * file that was parsed (under its bound when it had one) with a few entries in it, as fast to parse.
 */
export function misread(YAML: YamlModule, text: string, expected: Expected, ids: ValueIds): string | undefined {
  const doc = YAML.parseDocument(asKubectlReads(text), { keepSourceTokens: false, uniqueKeys: false });
  if (doc.errors.length > 0) return `it would not be valid YAML: ${yamlProblem(doc)}`;
  if (keyTwice(YAML, doc) !== undefined) return 'a mapping would hold a key twice';
  if (!YAML.isMap(doc.contents)) return 'it would not be a mapping';
  const idOf = ids.inDocument(doc);
  const nameOf = nameReader(YAML, doc);
  const seen = new Set<string | number>();
  for (const pair of doc.contents.items) {
    const key = keyOf(YAML, pair.key, idOf);
    seen.add(key);
    const want = expected.top.get(key);
    if (want === undefined) return `it would have a top-level key ${JSON.stringify(key)} it did not have`;
    const list = typeof key === 'string' ? expected.lists.get(key) : undefined;
    if (list !== undefined) {
      const why = misreadList(YAML, pair.value, list, expected.name, idOf, nameOf);
      if (why !== undefined) return `its ${key} ${why}`;
    } else if (idOf(pair.value) !== want) return `its ${JSON.stringify(key)} would read otherwise`;
    else if (key === 'current-context' && expected.use && !readsSameIn11(YAML, pair.value as Node))
      return 'its current-context would read otherwise to kubectl';
  }
  for (const key of expected.top.keys())
    if (!seen.has(key)) return `its top-level key ${JSON.stringify(key)} would be gone`;
  return undefined;
}

function misreadList(
  YAML: YamlModule,
  value: unknown,
  list: { ids: number[]; ours: number },
  name: string,
  idOf: (node: unknown) => number,
  nameOf: NameOf,
): string | undefined {
  if (!YAML.isSeq(value)) return 'would not be a list';
  if (value.items.length !== list.ids.length) return `would hold ${value.items.length} entries, not ${list.ids.length}`;
  for (const [index, item] of value.items.entries()) {
    if (idOf(item) !== list.ids[index]) return `entry ${index + 1} would read otherwise`;
    const ours = nameOf(item) === name;
    if (ours !== (index === list.ours))
      return `entry ${index + 1} would ${ours ? 'be a second one' : 'not be the one'} of our name`;
    if (ours && !readsSameIn11(YAML, item as Node)) return `entry ${index + 1} would read otherwise to kubectl`;
  }
  return undefined;
}

/** The offset of the first key that a map of `doc` holds twice, found in one pass (a set per map). */
export function keyTwice(YAML: YamlModule, doc: Document): number | undefined {
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
