// A json: body's templates, which are its strings at any depth: listed with their field paths for
// the check when the config loads, and rendered into the value sent and the value shown.

/** A text as sent and as shown (the body, made of several fields). */
export interface Texts {
  sent: string;
  shown: string;
}

/** The strings of a json: body as [field path, template]. */
export function jsonStrings(value: unknown, where: string, into: Array<[string, string]>): void {
  if (typeof value === 'string') into.push([where, value]);
  else if (Array.isArray(value)) value.forEach((item, i) => jsonStrings(item, `${where}[${i}]`, into));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) jsonStrings(v, `${where}.${k}`, into);
}

/** A json: body with each of its strings rendered by `field`, as sent and as shown (a key `__proto__` is a key like any other). */
export async function renderJson(
  value: unknown,
  where: string,
  field: (template: string, where: string) => Promise<Texts>,
): Promise<{ sent: unknown; shown: unknown }> {
  if (typeof value === 'string') return field(value, where);
  if (Array.isArray(value)) {
    const sent: unknown[] = [];
    const shown: unknown[] = [];
    for (const [i, item] of value.entries()) {
      const text = await renderJson(item, `${where}[${i}]`, field);
      sent.push(text.sent);
      shown.push(text.shown);
    }
    return { sent, shown };
  }
  if (value && typeof value === 'object') {
    const sent: Record<string, unknown> = {};
    const shown: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const text = await renderJson(v, `${where}.${k}`, field);
      Object.defineProperty(sent, k, { value: text.sent, enumerable: true, writable: true, configurable: true });
      Object.defineProperty(shown, k, { value: text.shown, enumerable: true, writable: true, configurable: true });
    }
    return { sent, shown };
  }
  return { sent: value, shown: value };
}
