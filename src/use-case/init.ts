// `webapi-credential init [provider]`: the example configs of examples/, embedded when the CLI is
// built (scripts/examples.mjs), listed or printed as a starting point. Each config's header comment
// names the env variables and --set values it needs and where each is found in the provider's
// console; `--set k=v` writes the value in place of vars.k. Loaded only by this command.
import { UsageError } from '../errors.js';
import { closest } from '../config/shape.js';
import { parseSetFlags } from '../config/vars.js';

declare const __EXAMPLES__: string | undefined;

function examples(): Record<string, string> {
  return typeof __EXAMPLES__ === 'string' ? (JSON.parse(__EXAMPLES__) as Record<string, string>) : {};
}

/** The providers, one a line with the first line of its description. */
export function listProviders(): string {
  const all = examples();
  const names = Object.keys(all);
  const width = Math.max(...names.map((name) => name.length));
  const lines = names.map((name) => {
    const about = /^# (.+)$/m.exec(all[name]!)?.[1] ?? '';
    return `  ${name.padEnd(width)}  ${about.length > 90 ? `${about.slice(0, 89).replace(/[\s,:;(]+\S*$/, '')}…` : about}`;
  });
  return `Providers (webapi-credential init <provider> prints its config; --set key=value fills in its vars):\n${lines.join('\n')}\n`;
}

/** The config of `provider`, with the --set values written in. */
export async function providerConfig(provider: string, sets: string[] | undefined): Promise<string> {
  const all = examples();
  // Own names only: `init constructor` is no provider, not Object's.
  const text = Object.hasOwn(all, provider) ? all[provider] : undefined;
  if (text === undefined) {
    const names = Object.keys(all);
    const guess = closest(provider, names);
    throw new UsageError('PROVIDER_UNKNOWN', `no provider ${JSON.stringify(provider)}${guess ? ` (did you mean ${guess}?)` : ''}; the providers are ${names.join(', ')}`);
  }
  const vars = parseSetFlags(sets);
  if (Object.keys(vars).length === 0) return text;
  const known = [...new Set([...text.matchAll(/\bvars\.([A-Za-z_]\w*)/g)].map((m) => m[1]!))];
  for (const [key, value] of Object.entries(vars)) {
    if (!known.includes(key)) throw new UsageError('SET_UNKNOWN', `--set ${key}: the ${provider} config reads no vars.${key}; it reads ${known.join(', ')}`);
    // A value is data: written as a string literal, never as template text that could hold an expression.
    if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError('SET_INVALID', `--set ${key}: a value for init cannot hold control characters`);
  }
  const YAML = (await import('yaml')).default;
  const doc = YAML.parseDocument(text);
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('vars.')) node.value = fill(node.value, vars);
    },
  });
  const filled = Object.entries(vars).map(([key, value]) => `--set ${key}=${JSON.stringify(value)}`).join(' ');
  return doc.toString({ lineWidth: 0 }).replace(/^webAPIProviderConfig:/m, (line) => `# Filled in by init: ${filled}\n${line}`);
}

/** `{{ vars.k }}` becomes the value as text; vars.k inside a larger expression a string literal. */
function fill(text: string, vars: Record<string, string>): string {
  let out = text;
  for (const [key, value] of Object.entries(vars)) {
    const literal = `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    // Plain text only where it cannot read as a template or another tool's placeholder.
    const plain = /^[\w.:/@%+=,~ -]*$/.test(value) ? value : `{{ ${literal} }}`;
    out = out.replace(new RegExp(`\\{\\{\\s*vars\\.${key}\\s*\\}\\}`, 'g'), () => plain);
    out = out.replace(new RegExp(`\\bvars\\.${key}\\b(?![\\w$])`, 'g'), () => literal);
  }
  return out;
}
