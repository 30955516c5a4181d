// `kubeconfig --merge`: the cluster, user and context written into an existing kubeconfig the way
// `aws eks update-kubeconfig` does, through the yaml library's Document API rather than a re-dump,
// so that every other entry keeps its place, its quoting and its comments. Entries of the same
// names are replaced in place; a second merge of the same thing changes nothing.
import { UsageError } from '../../errors.js';
import { MAX_YAML_TOKENS, tooManyYamlTokens } from '../../config/load.js';

type YamlModule = typeof import('yaml');

interface MergeEntries {
  name: string;
  cluster: Record<string, unknown>;
  user: Record<string, unknown>;
  context: Record<string, unknown>;
}

const SECTIONS = [
  ['clusters', 'cluster'],
  ['users', 'user'],
  ['contexts', 'context'],
] as const;

/** The text of `existing` (undefined: no file yet) with the entries merged; `use` sets current-context. */
export function mergeKubeconfig(YAML: YamlModule, existing: string | undefined, entries: MergeEntries, use: boolean, where: string): string {
  const empty = { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [], 'current-context': '' };
  const fresh = existing === undefined || existing.trim() === '';
  // The YAML parser's time grows faster than the text (config/load.ts): the same token bound as a config.
  if (!fresh && tooManyYamlTokens(YAML, existing)) {
    throw new UsageError('KUBECONFIG_TOO_LARGE', `${where} is too large to merge into: more than ${MAX_YAML_TOKENS} YAML tokens; choose another file with --merge <file>`);
  }
  const doc = fresh ? new YAML.Document(empty) : YAML.parseDocument(existing, { keepSourceTokens: false });
  // Only comments, or `---`: kubectl reads an empty config; so do we, and the comments stay.
  if (!fresh && doc.errors.length === 0 && (doc.contents === null || (YAML.isScalar(doc.contents) && doc.contents.value === null))) doc.contents = doc.createNode(empty);
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    const problem = error.code === 'MULTIPLE_DOCS' ? 'it holds more than one document' : error.message.split('\n')[0]!.replace(/:$/, '');
    throw new UsageError('KUBECONFIG_INVALID', `${where} is not valid YAML (${problem}); fix it or choose another file with --merge <file>`);
  }
  if (!fresh && !YAML.isMap(doc.contents)) throw new UsageError('KUBECONFIG_INVALID', `${where} is not a kubeconfig (not a mapping); fix it or choose another file with --merge <file>`);
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
      // An alias elsewhere of an anchor in what goes keeps what it meant: a copy of it, in its place.
      for (const gone of list.items.filter(named)) keepAliasesOf(YAML, doc, gone, where);
      // The comment above a replaced entry stays with it.
      const old = list.items[at] as { commentBefore?: string | null };
      if (old.commentBefore) node.commentBefore = old.commentBefore;
      // kubectl refuses a file with two entries of one name: what we own is the one entry.
      list.items = list.items.filter((item, index) => index === at || !named(item));
      list.items[at] = node;
    } else list.items.push(node);
  }
  if (use) doc.set('current-context', entries.name);
  // kubectl writes lists flush with their key; keep whichever way the file has them.
  const indentSeq = fresh ? false : !/^[A-Za-z-]+:[ \t]*\n-[ \t]/m.test(existing);
  return doc.toString({ indentSeq, lineWidth: 0 });
}

/** Each alias outside `gone` of a node inside it becomes a copy of that node (its anchors dropped). */
function keepAliasesOf(YAML: YamlModule, doc: import('yaml').Document, gone: unknown, where: string): void {
  const inside = new Set<unknown>();
  YAML.visit(gone as import('yaml').Node, (_key, node) => {
    inside.add(node);
  });
  YAML.visit(doc, {
    Alias(_key, alias) {
      if (inside.has(alias)) return undefined;
      const target = alias.resolve(doc);
      if (target === undefined || !inside.has(target)) return undefined;
      // Its value with every alias inside it resolved, under the parser's alias bound: a clone would
      // keep aliases that the walk would then expand again, exponentially for chained anchors.
      let value: unknown;
      try {
        value = target.toJS(doc, { maxAliasCount: 50 });
      } catch {
        throw new UsageError('KUBECONFIG_INVALID', `${where}: an alias elsewhere refers to an anchor inside an entry being replaced, and expands too far; remove the alias, or choose another file with --merge <file>`);
      }
      return doc.createNode(value);
    },
  });
}
