// The example configs `webapi-credential init` prints, read from examples/ when the CLI is built and
// defined as __EXAMPLES__ (a JSON string, parsed only when init runs): one source, no copy in src/.
// A provider is a directory of examples/ with a config.yaml; its config-<variant>.yaml files are
// `<directory>/<variant>`.
import { existsSync, readFileSync, readdirSync } from 'node:fs';

export function exampleConfigs(root) {
  const examples = {};
  const dir = new URL('examples/', root);
  for (const name of readdirSync(dir).sort()) {
    if (!existsSync(new URL(`${name}/config.yaml`, dir))) continue;
    // config.yaml first, then its variants.
    const files = readdirSync(new URL(`${name}/`, dir)).sort((a, b) =>
      a === 'config.yaml' ? -1 : b === 'config.yaml' ? 1 : a.localeCompare(b),
    );
    for (const file of files) {
      const variant = /^config(?:-([a-z0-9-]+))?\.yaml$/.exec(file);
      if (!variant) continue;
      // The first line points editors at the schema by a path relative to examples/<name>/: not where the printed file goes.
      const text = readFileSync(new URL(`${name}/${file}`, dir), 'utf8').replace(/^# yaml-language-server: .*\n/, '');
      examples[variant[1] ? `${name}/${variant[1]}` : name] = text;
    }
  }
  return examples;
}

/** esbuild's define for it. */
export function examplesDefine(root) {
  return JSON.stringify(JSON.stringify(exampleConfigs(root)));
}
