// The inputs a request's credentials are made of, by name: what a 401 or a 403 tells people to check
// (SPEC "Errors": `check env.CLIENT_SECRET and vars.clientId`). Read from the templates' trees, as
// names.ts reads them, never from values: every env variable, `vars` key and file() path that a
// template of the headers, query or body names, directly or through a `let`, in any branch (and the
// steps whose answers they take). The URL
// (where the request goes) and tls (how) are not credentials.
import { eachNode, parseExpression, parseTemplate, SCOPE_NAMES, type Node } from './parse.js';

const LET_SOURCE = /^\s*\{\{([\s\S]*)\}\}\s*$/;

/** `env.CLIENT_SECRET`, `file /var/run/secrets/token`, `vars.clientId`: sorted, so env comes first. */
export function credentialInputs(lets: Array<[string, string]>, templates: Iterable<string>): string[] {
  const names = new Set<string>([...SCOPE_NAMES, ...lets.map(([name]) => name)]);
  const letRoots = new Map<string, Node>();
  const found = new Set<string>();
  const seenLets = new Set<string>();
  const roots: Node[] = [];
  try {
    for (const [name, source] of lets) letRoots.set(name, parseExpression(source.replace(LET_SOURCE, '$1'), names));
    for (const template of templates) {
      for (const part of parseTemplate(template, names)) if (typeof part !== 'string') roots.push(part.node);
    }
  } catch {
    // The templates were checked when the config loaded; a message is no place to fail anew.
    return [];
  }
  // A stack of roots, each let walked once however many templates name it.
  while (roots.length > 0) {
    eachNode(roots.pop()!, (node) => {
      if (node.type === 'name' && letRoots.has(node.name) && !seenLets.has(node.name)) {
        seenLets.add(node.name);
        roots.push(letRoots.get(node.name)!);
      }
      const named = inputOf(node);
      if (named !== undefined) found.add(named);
    });
  }
  return [...found].sort();
}

function inputOf(node: Node): string | undefined {
  if (
    node.type === 'member' &&
    node.object.type === 'name' &&
    (node.object.name === 'env' || node.object.name === 'vars')
  ) {
    const key =
      node.property.type === 'literal' && typeof node.property.value === 'string' ? node.property.value : undefined;
    if (key === undefined) return undefined;
    return /^[A-Za-z_][\w]*$/.test(key) ? `${node.object.name}.${key}` : `${node.object.name}[${JSON.stringify(key)}]`;
  }
  // What an earlier step answered: its name says which request to look at first.
  if (node.type === 'member' && node.object.type === 'name' && node.object.name === 'steps') {
    const step =
      node.property.type === 'literal' && typeof node.property.value === 'string' ? node.property.value : undefined;
    return step === undefined ? undefined : `steps.${step}`;
  }
  if (node.type === 'call' && node.helper === 'file') {
    const path = node.args[0];
    if (path?.type === 'literal' && typeof path.value === 'string') return `file ${path.value}`;
  }
  return undefined;
}

/** `check env.CLIENT_SECRET and vars.clientId`: the hint of a 401 or 403, or '' when nothing is named. */
export function checkHint(inputs: string[]): string {
  if (inputs.length === 0) return '';
  const shown = inputs.slice(0, 8);
  const last = inputs.length > shown.length ? `${inputs.length - shown.length} more` : shown.pop()!;
  return `; check ${shown.length > 0 ? `${shown.join(', ')} and ${last}` : last}`;
}
