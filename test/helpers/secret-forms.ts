// The forms a server, a proxy or a URL serializer gives a secret back in (SPEC "Errors"). Tests plant
// a secret, make the API echo it in these forms, and check that none of them is printed.
import type { CliResult } from './cli.js';

const hex2 = (code: number) => code.toString(16).padStart(2, '0');
const percentLower = (value: string) => encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
/** Go's encoding/json: JSON, plus <, >, & and U+2028/2029 as \u escapes. */
const goJson = (value: string) =>
  JSON.stringify(value)
    .slice(1, -1)
    .replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const htmlEscape = (value: string) =>
  value.replace(
    /[&<>"'+]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '+': '&#x2B;' })[c]!,
  );
const middle = (value: string) => Math.max(1, Math.floor(value.length / 2));
/** Where a wrap that indents its next line cuts the value: not before a space or tab of its own, which would read as the indentation. */
const wrapAt = (value: string) => {
  let cut = middle(value);
  while (cut < value.length - 1 && /[ \t]/.test(value[cut]!)) cut++;
  return cut;
};

/** Each form by name. Every one of them must be hidden wherever the plain value is secret. */
export function secretEchoes(value: string): Record<string, string> {
  const bytes = Buffer.from(value, 'utf8');
  const cut = middle(value);
  return {
    plain: value,
    'upper case': value.toUpperCase(),
    'lower case': value.toLowerCase(),
    'percent-encoded (encodeURIComponent)': encodeURIComponent(value),
    'percent-encoded, lower-case hex': percentLower(value),
    'URL path encode set': new URL(
      `https://h/${value.replace(/[/?#\\%]/g, (c) => encodeURIComponent(c))}`,
    ).pathname.slice(1),
    'form-encoded': new URLSearchParams({ v: value }).toString().slice(2),
    'JSON-escaped': JSON.stringify(value).slice(1, -1),
    "Go's JSON encoder": goJson(value),
    'every character \\u-escaped': [...value]
      .map((c) =>
        JSON.stringify(c).slice(1, -1) === c
          ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
          : JSON.stringify(c).slice(1, -1),
      )
      .join(''),
    'HTML-escaped': htmlEscape(value),
    'HTML decimal entities': [...value].map((c) => `&#${c.codePointAt(0)};`).join(''),
    base64: bytes.toString('base64'),
    'unpadded base64': bytes.toString('base64').replace(/=+$/, ''),
    base64url: bytes.toString('base64url'),
    'lower-case hex': bytes.toString('hex'),
    'upper-case hex': [...bytes].map(hex2).join('').toUpperCase(),
    'cut by \\n': `${value.slice(0, cut)}\n${value.slice(cut)}`,
    'cut by \\r\\n': `${value.slice(0, cut)}\r\n${value.slice(cut)}`,
    'cut by \\n, the next line indented': `${value.slice(0, wrapAt(value))}\n    ${value.slice(wrapAt(value))}`,
    'cut by an escaped \\n in JSON text': JSON.stringify(`${value.slice(0, cut)}\n${value.slice(cut)}`).slice(1, -1),
  };
}

/** Every form of every secret found in stdout or stderr (stdout may hold `allowInStdout` as itself). */
export function leakedForms(
  result: CliResult,
  secrets: readonly string[],
  allowInStdout: readonly string[] = [],
): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const [name, form] of Object.entries(secretEchoes(secret))) {
      // A form that only differs from the text around it by case would also match ordinary words.
      if (form.length < 6) continue;
      if (result.stderr.includes(form))
        found.push(`stderr shows ${JSON.stringify(secret)} ${name}: ${JSON.stringify(form)}`);
      if (!allowInStdout.includes(secret) && result.stdout.includes(form))
        found.push(`stdout shows ${JSON.stringify(secret)} ${name}: ${JSON.stringify(form)}`);
    }
  }
  return found;
}
