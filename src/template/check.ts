// Templates checked when the config loads, before anything is evaluated: every problem of every
// field at once (syntax, names a let may not take, steps read before they run).
import { HELPER_NAMES } from './helpers.js';
import { foreignPlaceholders } from './placeholders.js';
import { oneLine, parseExpression, parseTemplate, SCOPE_NAMES, TemplateSyntaxError, type Node } from './parse.js';

/** A problem of one field, found when the config loads. */
export interface TemplateIssue {
  path: string;
  message: string;
  /**
   * A shell habit (`$API_TOKEN`) in literal text: refused before any request by get-token,
   * validate, render and the generators alike (code TEMPLATE_HABIT).
   */
  habit?: boolean;
}

/** Names a `let` may not take: they would hide what templates read. */
const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...SCOPE_NAMES,
  ...HELPER_NAMES,
  'undefined',
  'true',
  'false',
  'null',
  'this',
]);

/**
 * The names every template can read: env, vars, cluster, steps, then the `let` names as each is
 * defined. One set that grows, never one rebuilt per `let` (20 000 lets made that quadratic).
 */
export function scopeNames(): Set<string> {
  return new Set(SCOPE_NAMES);
}

/** Templates of one request, and how many steps run before it (the first `stepsBefore` of the config's). */
export interface TemplateGroup {
  templates: Iterable<[string, string]>;
  stepsBefore: number;
}

/**
 * Checks every `let` and template of a config, at load, before anything is evaluated. `lets` in
 * order (each may use the ones before; none may read steps, which have not run when lets are
 * evaluated); each group's templates may read only the steps before them. `steps`: every step
 * name of the config, in order.
 */
export function checkTemplates(
  lets: Array<[string, string]>,
  steps: string[],
  groups: TemplateGroup[],
): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  const names = scopeNames();
  const stepIndex = new Map<string, number>();
  steps.forEach((step, i) => {
    if (!stepIndex.has(step)) stepIndex.set(step, i);
  });
  for (const [name, source] of lets) {
    const path = `webAPIProviderConfig.let.${name}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      issues.push({ path, message: 'a let name is a letter or _ followed by letters, digits or _' });
    else if (RESERVED_NAMES.has(name))
      issues.push({ path, message: `${name} is taken: a let may not hide env, vars, cluster, steps or a helper` });
    const expression = source.replace(/^\s*\{\{([\s\S]*)\}\}\s*$/, '$1');
    try {
      const node = parseExpression(expression, names);
      if (stepReferences(node).length > 0)
        issues.push({
          path,
          message: `{{ ${oneLine(expression)} }}: a let cannot read steps (it is evaluated before any step runs); write the expression where it is used`,
        });
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      issues.push({ path, message: error.message });
    }
    names.add(name);
  }
  for (const group of groups) {
    for (const [path, template] of group.templates) {
      try {
        const parts = parseTemplate(template, names);
        for (const problem of foreignPlaceholders(
          path,
          parts.filter((part) => typeof part === 'string'),
        ))
          issues.push(problem);
        for (const part of parts) {
          if (typeof part === 'string') continue;
          for (const step of stepReferences(part.node)) {
            const problem = stepProblem(step, group.stepsBefore, steps, stepIndex);
            if (problem) issues.push({ path, message: `{{ ${oneLine(part.source)} }}: ${problem}` });
          }
        }
      } catch (error) {
        if (!(error instanceof TemplateSyntaxError)) throw error;
        issues.push({ path, message: error.message });
      }
    }
  }
  return issues;
}

/** The step names an expression reads (`steps.login…`); null for `steps[expr]` or `steps` as a whole. */
export function stepReferences(node: Node): Array<string | null> {
  const found: Array<string | null> = [];
  const walk = (n: Node, asObject: boolean): void => {
    switch (n.type) {
      case 'name':
        if (n.name === 'steps' && !asObject) found.push(null);
        return;
      case 'member':
        if (n.object.type === 'name' && n.object.name === 'steps') {
          found.push(n.property.type === 'literal' && typeof n.property.value === 'string' ? n.property.value : null);
        } else walk(n.object, true);
        walk(n.property, false);
        return;
      case 'array':
        n.items.forEach((item) => walk(item, false));
        return;
      case 'object':
        n.entries.forEach(([, item]) => walk(item, false));
        return;
      case 'call':
        n.args.forEach((arg) => walk(arg, false));
        return;
      case 'not':
        walk(n.argument, false);
        return;
      case 'binary':
        walk(n.left, false);
        walk(n.right, false);
        return;
      case 'conditional':
        walk(n.test, false);
        walk(n.consequent, false);
        walk(n.alternate, false);
        return;
      case 'literal':
        return;
    }
  };
  walk(node, false);
  return found;
}

/** The most step names a message lists: one message per template, each naming 20 000 steps, was quadratic. */
const STEPS_NAMED = 10;

function stepProblem(
  step: string | null,
  before: number,
  steps: string[],
  stepIndex: Map<string, number>,
): string | undefined {
  const index = step === null ? undefined : stepIndex.get(step);
  if (index !== undefined && index < before) return undefined;
  const shown =
    steps.slice(0, Math.min(before, STEPS_NAMED)).join(', ') +
    (before > STEPS_NAMED ? ` and ${before - STEPS_NAMED} more` : '');
  const which = before > 0 ? `the steps before it are ${shown}` : 'no step runs before it';
  if (step === null) return `name the step: steps.<name> (${which})`;
  if (index !== undefined) return `steps.${step} runs later than this request; ${which}`;
  return `steps.${step} is not a step; ${which}`;
}
