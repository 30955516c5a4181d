// The yaml module with a count of what the kubeconfig merge asks of it: the documents it parses, and
// the files its lexer reads (the parse's token bound, src/kubeconfig/read.ts). Linear work, counted.
import YAML from 'yaml';

export function countingYaml(): { module: typeof YAML; calls: { parseDocument: number; lex: number } } {
  const calls = { parseDocument: 0, lex: 0 };
  const module = {
    ...YAML,
    default: YAML,
    parseDocument: (...args: Parameters<typeof YAML.parseDocument>) => {
      calls.parseDocument++;
      return YAML.parseDocument(...args);
    },
    Lexer: class extends YAML.Lexer {
      override *lex(source: string, incomplete?: boolean) {
        calls.lex++;
        yield* super.lex(source, incomplete);
      }
    },
  } as unknown as typeof YAML;
  return { module, calls };
}
