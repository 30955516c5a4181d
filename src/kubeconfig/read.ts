// A user's YAML file (a kubeconfig, a kuberc) read as kubectl reads it, under bounds: the file may be
// anyone's, so its size and the parser's work are bounded, and its problems are told in one sentence.
import type { Document } from 'yaml';
import { UsageError } from '../errors.js';
import { MAX_YAML_TOKENS } from '../config/load.js';

type YamlModule = typeof import('yaml');

/** The largest kubeconfig read: kubectl sets none; eight times a 1,000-cluster file with CA data. */
export const KUBECONFIG_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Whether the kubeconfig `text` is past the parser's bound: more than one YAML token a node could be
 * made of (white space and comments aside) per 2 bytes, or MAX_YAML_TOKENS if more. A kubeconfig as
 * kubectl writes it has 3.6 bytes a token without CA data, 30 with; a flow list of one-letter scalars
 * has 0.7, nested brackets 1. With the file's read bound, the parse is capped at 8 million tokens:
 * without its own check of unique keys (quadratic; the caller checks them by a set per map, check.ts)
 * the yaml parser took time linear in the text on every shape tried (flow mappings of 80,000 keys,
 * nested flow and block collections, aliases). Counting stops at the bound. Returns the bound when past it.
 */
export function pastTokenBound(YAML: YamlModule, text: string): number | undefined {
  const bound = Math.max(MAX_YAML_TOKENS, Math.ceil(text.length / 2));
  let tokens = 0;
  for (const token of new YAML.Lexer().lex(text))
    if (!/^[ \t\r\n]*$/.test(token) && token[0] !== '#' && ++tokens > bound) return bound;
  return undefined;
}

/**
 * The text as kubectl's YAML (go-yaml, YAML 1.1) reads its lines: it ends a line at U+0085, U+2028
 * and U+2029 too, where the yaml library sees text. Each becomes a line feed, so every offset stays
 * where it was: what the yaml library reads of this is the structure kubectl reads of the file.
 */
export function asKubectlReads(text: string): string {
  return text.replace(/[\u0085\u2028\u2029]/g, '\n');
}

/** The file's first YAML error as a UsageError of `code`: `<where> is not valid YAML (<problem>); <remedy>`. */
export function notValidYaml(code: string, where: string, doc: Document, remedy: string): UsageError {
  return new UsageError(code, `${where} is not valid YAML (${yamlProblem(doc)}); ${remedy}`);
}

/** The first error of a parse in a few words: its message's first line, or that there is more than one document. */
export function yamlProblem(doc: Document): string {
  const error = doc.errors[0]!;
  return error.code === 'MULTIPLE_DOCS'
    ? 'it holds more than one document'
    : error.message.split('\n')[0]!.replace(/:$/, '');
}

/** Whether a parse found only comments, `---` or nothing: kubectl reads an empty file. */
export function emptyDocument(YAML: YamlModule, doc: Document): boolean {
  return doc.contents === null || (YAML.isScalar(doc.contents) && doc.contents.value === null);
}
