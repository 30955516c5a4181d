// Whether two kubeconfig values are the same, by ids: equal values (as YAML reads them: aliases
// resolved, the order of a mapping's keys aside) get one id, from one table shared by the documents
// and plain values compared. Each node is given its id once, from its children's: an alias costs one
// look-up, where resolving it into a copy (toJS) costs the size of what it repeats, and a few nested
// anchors repeat exponentially much (the billion laughs). Linear in the documents.
import type { Document, Node } from 'yaml';
import { aliasTargets } from './names.js';

type YamlModule = typeof import('yaml');

export interface ValueIds {
  /** The id of a plain value (what JSON holds: objects, arrays, strings, numbers, booleans, null). */
  ofValue(value: unknown): number;
  /** A reader of the ids of the nodes of `doc` (aliases resolved in it; each node's id kept). */
  inDocument(doc: Document): (node: unknown) => number;
}

export function valueIds(YAML: YamlModule): ValueIds {
  const table = new Map<string, number>();
  const intern = (key: string) => {
    let id = table.get(key);
    if (id === undefined) {
      id = table.size;
      table.set(key, id);
    }
    return id;
  };
  const scalar = (value: unknown) =>
    intern(value === null || value === undefined ? 'null' : `${typeof value}:${String(value)}`);
  // A mapping by its pairs' ids in a fixed order: kubectl reads a mapping's keys in any order.
  const mapping = (pairs: string[]) => intern(`m${pairs.sort().join(',')}`);
  const ofValue = (value: unknown): number => {
    // A key whose value is undefined is not written (YAML.stringify, JSON): it is not there.
    if (Array.isArray(value)) return intern(`s${value.map(ofValue).join(',')}`);
    if (value !== null && typeof value === 'object')
      return mapping(
        Object.entries(value).flatMap(([key, item]) => (item === undefined ? [] : [`${scalar(key)}:${ofValue(item)}`])),
      );
    return scalar(value);
  };
  const inDocument = (doc: Document) => {
    let targets: Map<unknown, Node> | undefined;
    const ids = new Map<unknown, number>();
    // A node inside itself through an alias (`&a [*a]`) has no finite value: one id for all such.
    const pending = intern('cycle');
    const of = (node: unknown): number => {
      if (node === null || node === undefined) return scalar(null);
      const known = ids.get(node);
      if (known !== undefined) return known;
      ids.set(node, pending);
      let id: number;
      if (YAML.isAlias(node)) {
        targets ??= aliasTargets(YAML, doc);
        const target = targets.get(node);
        id = target === undefined ? intern(`alias:${node.source}`) : of(target);
      } else if (YAML.isScalar(node)) id = scalar(node.value);
      else if (YAML.isMap(node)) id = mapping(node.items.map((pair) => `${of(pair.key)}:${of(pair.value)}`));
      else if (YAML.isSeq(node)) id = intern(`s${node.items.map(of).join(',')}`);
      else if (YAML.isPair(node)) id = mapping([`${of(node.key)}:${of(node.value)}`]);
      else id = intern(`other:${String(node)}`);
      ids.set(node, id);
      return id;
    };
    return of;
  };
  return { ofValue, inDocument };
}
