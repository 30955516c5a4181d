// Whether a config's templates name a scope value at all, decided from their trees before anything is
// evaluated. The cache keys on the cluster info only when some `let` or template names `cluster`:
// a branch not taken this time (or one a step's answer decides) still counts, so the decision never
// depends on values and all callers of one config agree on it.
import { parseExpression, parseTemplate, SCOPE_NAMES, type Node } from './parse.js';

/** true when any `let` or template (already checked by checkTemplates) names `name`. */
export function namesScope(name: (typeof SCOPE_NAMES)[number], lets: Array<[string, string]>, templates: Iterable<string>): boolean {
  const names = new Set<string>([...SCOPE_NAMES, ...lets.map(([letName]) => letName)]);
  const roots: Node[] = lets.map(([, source]) => parseExpression(source.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1'), names));
  for (const template of templates) {
    for (const part of parseTemplate(template, names)) if (typeof part !== 'string') roots.push(part.node);
  }
  // A stack, not recursion: a config's expressions may nest deeper than the call stack goes.
  const stack = roots;
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.type) {
      case 'name':
        if (node.name === name) return true;
        break;
      case 'member':
        stack.push(node.object, node.property);
        break;
      case 'array':
        for (const item of node.items) stack.push(item);
        break;
      case 'object':
        for (const [, item] of node.entries) stack.push(item);
        break;
      case 'call':
        for (const arg of node.args) stack.push(arg);
        break;
      case 'not':
        stack.push(node.argument);
        break;
      case 'binary':
        stack.push(node.left, node.right);
        break;
      case 'conditional':
        stack.push(node.test, node.consequent, node.alternate);
        break;
      case 'literal':
        break;
    }
  }
  return false;
}
