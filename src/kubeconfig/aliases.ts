// Aliases that refer into entries a merge replaces or removes (merge.ts, splice.ts): cut out, an
// alias elsewhere would mean another thing or nothing.
import type { Document, Node } from 'yaml';

type YamlModule = typeof import('yaml');

/**
 * Calls `each` for every alias outside `gone` (entries about to go) that refers to an anchor inside
 * them, in one walk in document order, an alias meaning the last anchor of its name before it. yaml's
 * Alias.resolve finds the same by a walk of the document per alias: 4,000 aliases took 18 s. What
 * `each` returns replaces the alias (a node), stops the walk (visit.BREAK), or leaves it (undefined).
 */
export function aliasesInto(
  YAML: YamlModule,
  doc: Document,
  gone: unknown[],
  each: (target: Node) => Node | symbol | undefined,
): void {
  const inside = new Set<unknown>();
  for (const node of gone) YAML.visit(node as Node, (_key, child) => void inside.add(child));
  const anchors = new Map<string, Node>();
  YAML.visit(doc, {
    Node(_key, node) {
      if (!YAML.isAlias(node)) {
        if (node.anchor !== undefined) anchors.set(node.anchor, node);
        return undefined;
      }
      const target = anchors.get(node.source);
      return target !== undefined && inside.has(target) && !inside.has(node) ? each(target) : undefined;
    },
  });
}

/** Whether an alias elsewhere refers into `gone`: cut out, it would mean another thing or nothing; the Document way keeps its meaning. */
export function aliasInto(YAML: YamlModule, doc: Document, gone: unknown[]): boolean {
  let found = false;
  aliasesInto(YAML, doc, gone, () => {
    found = true;
    return YAML.visit.BREAK;
  });
  return found;
}
