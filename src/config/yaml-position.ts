// Where a YAML error really is. The parser reports an unclosed quote or flow collection where it
// gave up, the end of the text: `Missing closing "quote at line 9` for a quote opened on line 6.
// The lexer's tokens find the opening, so the message names the line to fix. Only on the error path,
// over a text already bounded in tokens (load.ts).

// The lexer's markers (document start, flow error end, scalar start) take no room in the text.
const MARKERS = new Set(['\u0002', '\u0018', '\u001f']);

export interface Position {
  line: number;
  column: number;
}

/** The opening of a quoted string or flow collection that never closes, or undefined. */
export function unclosedOpening(
  lexer: { lex: (source: string) => Iterable<string> },
  source: string,
): Position | undefined {
  let offset = 0;
  let quote: number | undefined;
  const flows: number[] = [];
  for (const token of lexer.lex(source)) {
    if (MARKERS.has(token)) continue;
    const first = token[0];
    if ((first === '"' || first === "'") && !closes(token, first)) quote = offset;
    else if (token === '[' || token === '{') flows.push(offset);
    else if (token === ']' || token === '}') flows.pop();
    offset += token.length;
  }
  const at = quote ?? flows[0];
  return at === undefined ? undefined : positionOf(source, at);
}

/** Whether a quoted scalar's token ends with its closing quote (not an escaped one). */
function closes(token: string, quote: string): boolean {
  if (token.length < 2 || !token.endsWith(quote)) return false;
  if (quote === "'") return true;
  let backslashes = 0;
  for (let i = token.length - 2; i > 0 && token[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

function positionOf(source: string, offset: number): Position {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
