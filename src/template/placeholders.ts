// Placeholders of other tools in the literal text of a template: the Argo CD proposal's `${.orgName}`
// and `{.token}`, a Go template's `{{ .name }}` (refused by parse.ts), a shell's `${NAME}`. Each would
// be sent to the token API as written, so each is a config error that shows what to write here.
// Only these exact shapes match: JSON in a raw body (`{"a":1}`), a lone `{` or `$`, and `$filter`
// in a URL are text like any other.

/** A placeholder found in a template's literal text; habit: a bare `$NAME` (its own error code). */
export interface PlaceholderIssue {
  path: string;
  message: string;
  habit?: boolean;
}

// A name that usually holds a secret: its value belongs in the environment, never on a command line.
const SECRET_NAME = /token|secret|passw|pwd|key|credential|assertion/i;

/** `orgName` -> `ORG_NAME`: the environment variable a name becomes. */
function envName(name: string): string {
  return /^[A-Z0-9_]+$/.test(name)
    ? name
    : name
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .replace(/-/g, '_')
        .toUpperCase();
}

/**
 * What to write here for `name`: `{{ vars.name }}` with --set, or `{{ env.NAME }}` for a secret; the
 * more likely first. An upper-case name is an environment variable already.
 */
export function translation(name: string, forceEnv = false): string {
  const env = `{{ env.${envName(name)} }}`;
  if (forceEnv || /^[A-Z][A-Z0-9_]*$/.test(name)) return `here it is ${env}`;
  const vars = `{{ vars.${name} }} with --set ${name}=…`;
  return SECRET_NAME.test(name)
    ? `here it is ${env} for a secret (or ${vars})`
    : `here it is ${vars} (or ${env} for a secret)`;
}

const PLACEHOLDER =
  /\$\{\.([A-Za-z_][A-Za-z0-9_]*)\}|\{\.([A-Za-z_][A-Za-z0-9_]*)\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)\b/g;

/** The placeholders of other tools in `literals`, the literal text parts of the template at `path`. */
export function foreignPlaceholders(path: string, literals: Iterable<string>): PlaceholderIssue[] {
  const issues: PlaceholderIssue[] = [];
  for (const text of literals) {
    for (const m of text.matchAll(PLACEHOLDER)) {
      const [whole, argo, jsonPath, shell, bare] = m;
      if (argo !== undefined || jsonPath !== undefined) {
        issues.push({
          path,
          message: `${whole} is another tool's placeholder, sent as written; ${translation((argo ?? jsonPath)!)}`,
        });
      } else if (shell !== undefined) {
        issues.push({ path, message: `${whole} is a shell variable, sent as written; ${translation(shell)}` });
      } else {
        // A literal `$` before capitals is rare in a credential and costs one call to find out: refused
        // everywhere, with the way to write it when it is meant.
        issues.push({
          path,
          message: `${whole} is a shell variable, which a template does not read; here it is {{ env.${bare!} }} (a literal $ is {{ "$" }})`,
          habit: true,
        });
      }
    }
  }
  return issues;
}
