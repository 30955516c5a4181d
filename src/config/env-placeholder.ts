// The stand-in `argocd-secret` writes into execProviderConfig.env for each secret the config reads
// (the command never sees the real values), and the check that one was not left there: a token API
// sent `<CLIENT_SECRET>` only answers 401. One format for the generator, get-token and doctor.

/** The placeholder argocd-secret writes for the env variable `name`: `<CLIENT_SECRET>`. */
export function envPlaceholder(name: string): string {
  return `<${name}>`;
}

/** The names of `env` whose value is still their own placeholder, sorted. */
export function placeholdersLeft(env: Record<string, string | undefined>): string[] {
  return Object.keys(env)
    .filter((name) => env[name] === envPlaceholder(name))
    .sort();
}

/** The one-line message for variables that still hold their placeholder. */
export function placeholderMessage(names: string[]): string {
  return names
    .map(
      (name) =>
        `env.${name} still holds the placeholder ${envPlaceholder(name)} that argocd-secret wrote; put the real value in the cluster secret`,
    )
    .join('; ');
}
