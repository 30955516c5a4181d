// Whether a config's templates name a scope value at all, decided from their trees before anything is
// evaluated. The cache keys on the cluster info only when some `let` or template names `cluster`:
// a branch not taken this time (or one a step's answer decides) still counts, so the decision never
// depends on values and all callers of one config agree on it.
import { eachNode, parseExpression, parseTemplate, SCOPE_NAMES, type Node } from './parse.js';

/** true when any `let` or template (already checked by checkTemplates) names `name`. */
export function namesScope(
  name: (typeof SCOPE_NAMES)[number],
  lets: Array<[string, string]>,
  templates: Iterable<string>,
): boolean {
  const names = new Set<string>([...SCOPE_NAMES, ...lets.map(([letName]) => letName)]);
  const roots: Node[] = lets.map(([, source]) =>
    parseExpression(source.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1'), names),
  );
  for (const template of templates) {
    for (const part of parseTemplate(template, names)) if (typeof part !== 'string') roots.push(part.node);
  }
  for (const root of roots) {
    let named = false;
    eachNode(root, (node) => {
      if (node.type === 'name' && node.name === name) named = true;
    });
    if (named) return true;
  }
  return false;
}
