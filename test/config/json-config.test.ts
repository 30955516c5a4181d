import { describe, expect, it } from 'vitest';
import { parseConfigText, parseJsonStrictly } from '../../src/config/load.js';

describe('parseJsonStrictly', () => {
  it.each<[string, string, unknown]>([
    ['an object', '{"a": 1, "b": [1, {"c": "d"}]}', { a: 1, b: [1, { c: 'd' }] }],
    ['the same key in two objects', '{"a": {"k": 1}, "b": {"k": 2}}', { a: { k: 1 }, b: { k: 2 } }],
    ['a key that only looks repeated after an escape', '{"a\\"": 1, "a": 2}', { 'a"': 1, a: 2 }],
    ['a string value equal to a key', '{"a": "a", "b": ["a", "a"]}', { a: 'a', b: ['a', 'a'] }],
    ['surrounding whitespace', '  \n{"a":1}\n', { a: 1 }],
  ])('parses %s', (_name, text, value) => {
    expect(parseJsonStrictly(text)).toEqual({ value });
  });

  it.each([
    ['a repeated key', '{"a": 1, "a": 2}'],
    ['a repeated key in a nested object', '{"x": {"a": 1, "b": 2, "a": 3}}'],
    ['a repeated key spelt with an escape', '{"a": 1, "\\u0061": 2}'],
    ['a repeated key inside a list', '{"l": [{"k": 1, "k": 2}]}'],
    ['YAML', 'webAPIProviderConfig:\n  method: POST\n'],
    ['a list at the top', '[1, 2]'],
    ['broken JSON', '{"a": 1,'],
  ])('leaves %s to the YAML parser', (_name, text) => {
    expect(parseJsonStrictly(text)).toBeUndefined();
  });
});

describe('parseConfigText', () => {
  it('gives JSON and the same document as YAML the same value', async () => {
    const json = await parseConfigText('{"webAPIProviderConfig": {"method": "POST", "retry": {"limit": 3}}}', 'test');
    const yaml = await parseConfigText('webAPIProviderConfig:\n  method: POST\n  retry: {limit: 3}\n', 'test');
    expect(json).toEqual(yaml);
  });

  it('reports a JSON duplicate key through the YAML parser, as before', async () => {
    await expect(
      parseConfigText('{"webAPIProviderConfig": {"method": "POST", "method": "GET"}}', 'test'),
    ).rejects.toThrow(/^config from test is not valid YAML or JSON: Map keys must be unique/);
  });
});
