// An entry's name as kubectl reads it. Its YAML reader (go-yaml) resolves aliases and merge keys before
// kubectl sees the entry: `- <<: *n` with `n: &n {name: b}` elsewhere is an entry named b, and so is
// `- {*k : b}` with `&k name`. Document.get('name') sees neither, and a merge appended a second b,
// which kubectl refuses (duplicate name). Both merge ways and the check of their result read names here.
import type { Document, Node } from 'yaml';

type YamlModule = typeof import('yaml');

/** An entry whose names disagree: `name` says one, a merge key (<<) another. */
export interface Unclear {
  unclear: [string, string];
}

export type NameOf = (item: unknown) => string | undefined | Unclear;

/**
 * A reader of entry names in `doc`: the string an entry (a mapping, or an alias of one) has under
 * `name`, its key or value an alias or not, else the first one its merge keys bring; undefined when it
 * has none. Where `name` and a merge key disagree, go-yaml's answer depends on their order (the spec's
 * does not): Unclear. Aliases are resolved by one walk of the document in its order, on the first need
 * (Alias.resolve walks the whole document for each one).
 */
export function nameReader(YAML: YamlModule, doc: Document): NameOf {
  let targets: Map<unknown, Node> | undefined;
  const resolve = (node: unknown): unknown => {
    if (!YAML.isAlias(node)) return node;
    targets ??= aliasTargets(YAML, doc);
    return targets.get(node);
  };
  const scalar = (node: unknown): unknown => {
    const target = resolve(node);
    return YAML.isScalar(target) ? target.value : undefined;
  };
  // Each mapping is read once: merge keys that chain through shared mappings cost their size, not
  // the number of paths through them; one that refers to a mapping being read ends there.
  const known = new Map<unknown, string | undefined | Unclear>();
  const read = (item: unknown): string | undefined | Unclear => {
    const map = resolve(item);
    if (!YAML.isMap(map)) return undefined;
    if (known.has(map)) return known.get(map);
    known.set(map, undefined);
    let own: string | undefined;
    let merged: string | undefined | Unclear;
    for (const pair of map.items) {
      const key = resolve(pair.key);
      if (YAML.isScalar(key) && key.value === 'name') {
        const value = scalar(pair.value);
        if (typeof value === 'string') own = value;
      } else if (
        merged === undefined &&
        YAML.isScalar(pair.key) &&
        pair.key.value === '<<' &&
        pair.key.type === 'PLAIN'
      ) {
        // go-yaml merges a mapping, an alias of one, or a list of those, the first one's keys winning.
        const value = resolve(pair.value);
        for (const source of YAML.isSeq(value) ? value.items : [value]) {
          merged = read(source);
          if (merged !== undefined) break;
        }
      }
    }
    const name =
      typeof merged === 'object'
        ? merged
        : own !== undefined && merged !== undefined && own !== merged
          ? { unclear: [own, merged] as [string, string] }
          : (own ?? merged);
    known.set(map, name);
    return name;
  };
  return read;
}

/** Each alias of `doc` and the node it refers to: the last one before it with its anchor, in document order. */
export function aliasTargets(YAML: YamlModule, doc: Document): Map<unknown, Node> {
  const anchors = new Map<string, Node>();
  const targets = new Map<unknown, Node>();
  YAML.visit(doc, {
    Node(_key, node) {
      if (YAML.isAlias(node)) {
        const target = anchors.get(node.source);
        if (target !== undefined) targets.set(node, target);
      } else if (node.anchor !== undefined) anchors.set(node.anchor, node);
    },
  });
  return targets;
}

/**
 * Why `name` may not name a kubeconfig's entries, or undefined. kubectl's YAML (go-yaml, YAML 1.1)
 * ends a line at U+0085, U+2028 and U+2029, and a name holding one was read as another name or broke
 * the whole file; a control character (Cc) or a format character (Cf: invisible, some turn the text
 * around them) shows as something other than it is in our report and in `kubectl config
 * get-contexts`. Said by its code point: the name itself cannot be shown on one line.
 */
export function hostileName(name: string): string | undefined {
  const found = /[\p{Cc}\p{Cf}\u2028\u2029]/u.exec(name)?.[0];
  if (found === undefined) return undefined;
  const kind = /[\n\r\u0085\u2028\u2029]/.test(found)
    ? "a line break to kubectl's YAML"
    : /\p{Cc}/u.test(found)
      ? 'a control character'
      : 'a format character (invisible)';
  return `holds U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}, ${kind}`;
}
