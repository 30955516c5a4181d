// The line-level reading of kubeconfig --merge's text way (merge/merge.ts): one line's scalars,
// quotes and flow collections, each in one pass over the line, without the yaml parser.

/**
 * Whether the line from `from` to `to` opens a flow collection (`{` or `[` where a value starts) or a
 * quoted scalar and does not close it on the line. Inside a flow collection a plain scalar holds no
 * brackets, so counting them outside quoted scalars and comments is enough; one pass over the line.
 */
export function unclosedFlow(text: string, from: number, to: number): boolean {
  let depth = 0;
  // The last character before this one that is not a space: a value starts after `- ` or `: `.
  let last = '-';
  for (let i = from; i < to; i++) {
    const c = text[i]!;
    if (depth === 0) {
      const starts = (last === '-' || last === ':') && (i === from || text[i - 1] === ' ');
      if (starts && (c === '"' || c === "'")) {
        // A quoted scalar at a value's start that goes on to the next line: that line is its text.
        i = quoteEnd(text, i, to);
        if (i >= to) return true;
        last = c;
      } else if (starts && (c === '{' || c === '[')) depth = 1;
      else if (c === '#' && (i === from || text[i - 1] === ' ')) return false;
      else if (c !== ' ') last = c;
      // Closed on the line: what follows is the scan's business again.
      continue;
    }
    if (c === "'" || c === '"') i = quoteEnd(text, i, to);
    else if (c === '#' && /\s/.test(text[i - 1]!)) return true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) last = c;
    }
  }
  return depth !== 0;
}

/** The offset of the quote that closes the quoted scalar opening at `at` (`to` when the line does not close it). */
function quoteEnd(text: string, at: number, to: number): number {
  const quote = text[at];
  let i = at + 1;
  if (quote === "'") {
    // '' is a quote inside single quotes.
    for (; i < to && !(text[i] === "'" && text[i + 1] !== "'"); i++) if (text[i] === "'") i++;
  } else {
    for (; i < to && text[i] !== '"'; i++) if (text[i] === '\\') i++;
  }
  return Math.min(i, to);
}

/** A one-line scalar's value (plain or quoted), or undefined for anything longer or stranger. */
export function plainValue(raw: string): string | undefined {
  const text = withoutComment(raw);
  if (text === '' || /^[|>[{]/.test(text)) return undefined;
  if (text.startsWith('"')) {
    try {
      const value = JSON.parse(text) as unknown;
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }
  if (text.startsWith("'")) return /^'(?:[^']|'')*'$/.test(text) ? text.slice(1, -1).replace(/''/g, "'") : undefined;
  return text;
}

export function withoutComment(text: string): string {
  // A plain scalar ends at ` #`; quoted ones are read whole (a `#` inside quotes is text).
  if (/^["']/.test(text)) return text.trim();
  if (text.startsWith('#')) return '';
  const at = text.search(/\s#/);
  return (at >= 0 ? text.slice(0, at) : text).trim();
}

/**
 * The comment that ends a line's value, with the white space before it (`  # note`), or '': what
 * `--use` keeps when it writes another value on the line. Read as withoutComment reads the value: a
 * quoted scalar whole (a `#` inside quotes is text), a plain one up to ` #`.
 */
export function trailingComment(text: string): string {
  const quoted = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')(\s+#.*)?\s*$/.exec(text);
  if (/^["']/.test(text)) return quoted?.[1] ?? '';
  // ` #` found first (a fixed pattern: linear), then the white space before it (\s+# would try every
  // start of a long run of spaces again: the square of the line).
  let at = text.search(/\s#/);
  if (at < 0) return '';
  while (at > 0 && /\s/.test(text[at - 1]!)) at--;
  return text.slice(at).trimEnd();
}

export function countSpaces(text: string, from: number, to: number): number {
  let at = from;
  while (at < to && text[at] === ' ') at++;
  return at - from;
}
