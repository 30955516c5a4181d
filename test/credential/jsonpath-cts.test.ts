// The RFC 9535 compliance test suite (jsonpath-standard/jsonpath-compliance-test-suite), run through
// our own path handling: normalizePath + validateProviderDocument decide validity exactly as they do
// for a real config, and the path engine (simple-path.ts, else json-p3) selects the nodes exactly as
// extraction does. The suite's simple selectors are also held to simple-path.ts alone.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizePath, validateProviderDocument } from '../../src/config/validate.js';
import { checkPath, queryPath as fullQuery } from '../../src/credential/jsonpath.js';
import { pathEngine } from '../../src/credential/paths.js';
import { simpleQuery, simpleSegments } from '../../src/credential/simple-path.js';

// The engine a real config gets: json-p3 loaded, simple paths answered by simple-path.ts.
const engine = await pathEngine(['$[?@]']);
const queryPath = engine.query;

interface CtsCase {
  name: string;
  selector: string;
  document?: unknown;
  result?: unknown[];
  results?: unknown[][];
  invalid_selector?: boolean;
}

const cts = JSON.parse(readFileSync(new URL('../fixtures/jsonpath-cts/cts.json', import.meta.url), 'utf8')) as {
  tests: CtsCase[];
};
const valid = cts.tests.filter((t) => !t.invalid_selector);
const invalid = cts.tests.filter((t) => t.invalid_selector);

function configWithTokenPath(selector: string) {
  return validateProviderDocument(
    { webAPIProviderConfig: { method: 'POST', url: 'https://auth.example.com/token', tokenPath: selector } },
    engine.check,
  );
}

describe('the RFC 9535 compliance test suite', () => {
  it('holds the 703 cases this test was written against', () => {
    expect(cts.tests).toHaveLength(703);
    expect(valid.length + invalid.length).toBe(703);
  });

  it.each(valid.map((t) => [t.name, t] as const))('accepts the valid selector of "%s" as a tokenPath', (_name, t) => {
    const result = configWithTokenPath(t.selector);
    expect(result.ok ? [] : result.issues).toEqual([]);
    if (result.ok) expect(result.config.paths.token).toBe(normalizePath(t.selector));
  });

  it.each(invalid.map((t) => [t.name, t] as const))(
    'rejects the invalid selector of "%s" with an issue on tokenPath',
    (_name, t) => {
      const result = configWithTokenPath(t.selector);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.issues.map((i) => i.path)).toEqual(['webAPIProviderConfig.tokenPath']);
      }
    },
  );

  it.each(valid.map((t) => [t.name, t] as const))('selects the expected nodes for "%s"', (_name, t) => {
    const values = queryPath(normalizePath(t.selector), t.document).map((m) => m.value);
    if (t.results) expect(t.results).toContainEqual(values);
    else expect(values).toEqual(t.result);
  });

  it('has no selector that kubectl-style normalization would rewrite', () => {
    expect(cts.tests.filter((t) => normalizePath(t.selector) !== t.selector).map((t) => t.selector)).toEqual([]);
  });
});

// kubectl writes `{.a.b}` for `$.a.b`. Wrapping every suite selector that starts with `$.` or `$[` that
// way must give the same verdict and the same nodes: the normalization may not make an invalid
// selector valid, nor change what a valid one selects.
describe('the compliance suite in kubectl style', () => {
  const kubectl = (selector: string) => `{${selector.slice(1)}}`;
  const wrappable = (t: CtsCase) => /^\$[.[]/.test(t.selector);

  it.each(valid.filter(wrappable).map((t) => [kubectl(t.selector), t] as const))(
    'accepts %s and selects the same nodes',
    (selector, t) => {
      const result = configWithTokenPath(selector);
      expect(result.ok ? result.config.paths.token : result.issues).toBe(t.selector);
      const values = queryPath(normalizePath(selector), t.document).map((m) => m.value);
      if (t.results) expect(t.results).toContainEqual(values);
      else expect(values).toEqual(t.result);
    },
  );

  it.each(invalid.filter(wrappable).map((t) => [kubectl(t.selector), t] as const))(
    'rejects %s like the suite rejects its selector',
    (selector) => {
      const result = configWithTokenPath(selector);
      expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual(['webAPIProviderConfig.tokenPath']);
    },
  );
});

describe('simple-path.ts against the compliance suite', () => {
  const simple = cts.tests.filter((t) => simpleSegments(t.selector) !== undefined);

  it('recognises a fair share of the suite, so that the checks below mean something', () => {
    expect(simple.length).toBeGreaterThanOrEqual(25);
  });

  it('recognises no selector the suite calls invalid', () => {
    expect(simple.filter((t) => t.invalid_selector).map((t) => t.selector)).toEqual([]);
  });

  it.each(simple.map((t) => [t.selector, t] as const))(
    'selects for %s what the suite and json-p3 select',
    (_selector, t) => {
      const values = simpleQuery(simpleSegments(t.selector)!, t.document).map((m) => m.value);
      if (t.results) expect(t.results).toContainEqual(values);
      else expect(values).toEqual(t.result);
      expect(values).toEqual(fullQuery(t.selector, t.document).map((m) => m.value));
      expect(checkPath(t.selector)).toBeUndefined();
    },
  );
});
