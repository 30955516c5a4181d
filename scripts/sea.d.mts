/** The sources of a SEA: the main script and the assets by name (scripts/sea.mjs). */
export interface SeaSources {
  main: string;
  assets: Record<string, string>;
}
/** The SEA blob of `sources`, made by `node`, with the assets' V8 code cache when `codeCache`. */
export function blob(
  node: string,
  sources: SeaSources,
  output: string,
  codeCache: boolean,
  windows?: boolean,
): Promise<string>;
