// What a request shows (render, validate, traces, messages) where it differs from what it sends: a
// secret too short for the redactor to find, [REDACTED] in the shown text, and the span that differs
// registered with the redactor, as sent and decoded.
import type { Redactor } from '../redact/redactor.js';
import type { RenderedField } from '../template/rendered-field.js';
import type { Texts } from './json-body.js';

/** A request's URL, headers and body: as sent, or as shown. */
export interface ShownRequest {
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The rendered fields a request is shown from (build.ts RenderedFields). */
interface ShownFields {
  url: RenderedField;
  query: Array<[string, RenderedField]>;
  headers: Array<[string, RenderedField]>;
  body?: Texts;
}

/** Whether a field is shown other than as sent (a short secret shown as [REDACTED]). */
export function differs(fields: ShownFields): boolean {
  const texts: Texts[] = [
    fields.url,
    ...fields.query.map(([, text]) => text),
    ...fields.headers.map(([, text]) => text),
  ];
  if (fields.body) texts.push(fields.body);
  return texts.some((text) => text.sent !== text.shown);
}

/**
 * Values a secret decided that are too short for the redactor alone (one letter each, shown as
 * [REDACTED]) spell it out side by side: `/H/u/n/t/e/r` in a path, `f0=H&f1=u` in a form, which a
 * server echoes in its error. Where the sent text differs from the shown one, from the first
 * difference to the last, is a secret of its own, in the form sent and decoded: one a secret decided
 * (Redactor.addDecided) unless the text holds a short secret read too (`shortRead`).
 */
export function registerSpelled(
  request: ShownRequest,
  shown: ShownRequest,
  shortRead: ReadonlySet<string>,
  redactor: Redactor,
): void {
  const texts: Array<[string, string | undefined, string]> = [
    [request.url, shown.url, 'url'],
    [request.body ?? '', shown.body, 'body'],
  ];
  for (const [name, value] of Object.entries(request.headers)) texts.push([value, shown.headers[name], name]);
  for (const [sent, seen, which] of texts) {
    const add = shortRead.has(which)
      ? (text: string) => redactor.add(text)
      : (text: string) => redactor.addDecided(text);
    if (seen === undefined || sent === seen) continue;
    let start = 0;
    while (start < sent.length && start < seen.length && sent[start] === seen[start]) start++;
    let end = 0;
    while (
      end < sent.length - start &&
      end < seen.length - start &&
      sent[sent.length - 1 - end] === seen[seen.length - 1 - end]
    )
      end++;
    const span = sent.slice(start, sent.length - end);
    add(span);
    for (const decode of [(t: string) => decodeURIComponent(t.replaceAll('+', ' ')), decodeURIComponent]) {
      try {
        add(decode(span));
      } catch {
        // Not percent-encoded text.
      }
    }
  }
}

/** The request as shown: the same, with the fields a short secret reached as the renderer showed them. */
export function shownRequest(request: ShownRequest, fields: ShownFields): ShownRequest {
  let url = fields.url.shown;
  try {
    const parsed = new URL(fields.url.shown);
    for (const [name, value] of fields.query) parsed.searchParams.append(name, value.shown);
    url = parsed.toString();
  } catch {
    // Shown as rendered: it is only read.
  }
  const headers = { ...request.headers };
  for (const [name, value] of fields.headers) if (Object.hasOwn(headers, name)) headers[name] = value.shown;
  // The marker went through URL and form encoding: show it as written.
  const plain = (text: string) => text.replaceAll('%5BREDACTED%5D', '[REDACTED]');
  return { url: plain(url), headers, ...(fields.body !== undefined ? { body: plain(fields.body.shown) } : {}) };
}

/**
 * `text` with the request's URL as shown where it names it as sent (whole, or up to its query): a
 * message or doctor's report names it as `render` shows it, a short secret in it (a letter a comparison
 * chose) [REDACTED], which the redactor alone could not find.
 */
export function withShownUrl(request: { url: string; shown?: ShownRequest }): (text: string) => string {
  const { shown } = request;
  if (!shown) return (text) => text;
  const beforeQuery = (url: string) => url.split(/[?#]/)[0]!;
  return (text) => text.replaceAll(request.url, shown.url).replaceAll(beforeQuery(request.url), beforeQuery(shown.url));
}
