// The only importer of json-p3. Paths reach here already normalized by config/validate.ts.
import { jsonpath, type JSONValue } from 'json-p3';

export function checkPath(path: string): string | undefined {
  try {
    jsonpath.compile(path);
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).split('\n')[0];
  }
}

export interface Match {
  value: unknown;
  location: string;
}

export function queryPath(path: string, document: unknown): Match[] {
  return jsonpath
    .compile(path)
    .query(document as JSONValue)
    .nodes.map((node) => ({ value: node.value, location: node.getPath() }));
}
