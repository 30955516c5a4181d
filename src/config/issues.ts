// The issues a validation finds, indexed by the field each is about: validate.ts and its login rules
// (validate-login.ts) add to them and ask whether a field is known to be wrong already.
import type { Issue } from './shape.js';

/** Where a provider config's fields are: every issue's path starts here. */
export const ROOT = 'webAPIProviderConfig';

/**
 * The issues found so far, indexed by the request field each is about (`webAPIProviderConfig.url`,
 * `webAPIProviderConfig.steps[3].timeout`), so that asking whether a field is known costs the same
 * with 10 000 steps as with one: a scan of every issue per field made a large config quadratic.
 */
export class Issues {
  private readonly fields = new Set<string>();
  constructor(readonly list: Issue[]) {
    for (const issue of list) this.mark(issue.path);
  }
  push(issue: Issue): void {
    this.list.push(issue);
    this.mark(issue.path);
  }
  /** No issue is about this field (`field` has at most two dots: ROOT, a step, the field). */
  known(field: string): boolean {
    return !this.fields.has(field);
  }
  private mark(path: string): void {
    // The path itself and its ancestors of two and three segments: what known() can be asked.
    this.fields.add(path);
    const second = path.indexOf('.', ROOT.length + 1);
    if (second < 0) return;
    this.fields.add(path.slice(0, second));
    const third = path.indexOf('.', second + 1);
    if (third >= 0) this.fields.add(path.slice(0, third));
  }
}
