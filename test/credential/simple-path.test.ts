import { describe, expect, it } from 'vitest';
import { simpleQuery, simpleSegments } from '../../src/credential/simple-path.js';
import { pathEngine } from '../../src/credential/paths.js';

describe('simpleSegments', () => {
  it.each<[string, (string | number)[]]>([
    ['$', []],
    ['$.access_token', ['access_token']],
    ['$.status.credential.token', ['status', 'credential', 'token']],
    ["$['data']['service_account_token']", ['data', 'service_account_token']],
    ['$["a b"]', ['a b']],
    ["$['kebab-case']", ['kebab-case']],
    ['$.items[0].value', ['items', 0, 'value']],
    ['$.items[-1]', ['items', -1]],
    ['$._private9', ['_private9']],
  ])('reads %s as its steps', (path, segments) => {
    expect(simpleSegments(path)).toEqual(segments);
  });

  it.each([
    ['a wildcard', '$.*'],
    ['a filter', '$[?@.a]'],
    ['a slice', '$[0:2]'],
    ['descendants', '$..token'],
    ['a union', "$['a','b']"],
    ['whitespace in brackets', '$[ 0 ]'],
    ['an escape in a name', "$['a\\'b']"],
    ['a non-ASCII name', '$.ünïcode'],
    ['a leading zero', '$[01]'],
    ['minus zero', '$[-0]'],
    ['an index beyond 2^53', '$[9007199254740992]'],
    ['a name starting with a digit', '$.1abc'],
    ['no root', 'access_token'],
    ['a trailing dot', '$.a.'],
  ])('leaves %s to json-p3', (_name, path) => {
    expect(simpleSegments(path)).toBeUndefined();
  });
});

describe('simpleQuery', () => {
  const document = { a: { 'b c': [[1, 2, 3]] }, list: ['x', 'y'], n: null, proto: {} };
  it.each<[string, unknown[], string[]]>([
    ["$.a['b c'][0][-1]", [3], ["$.a['b c'][0][2]"]],
    ['$.list[1]', ['y'], ['$.list[1]']],
    ['$.list[2]', [], []],
    ['$.list[-3]', [], []],
    ['$.n', [null], ['$.n']],
    ['$.list.length', [], []],
    ['$.proto.constructor', [], []],
    ['$.a[0]', [], []],
  ])('selects for %s', (path, values, locations) => {
    const matches = simpleQuery(simpleSegments(path)!, document);
    expect(matches.map((m) => m.value)).toEqual(values);
    expect(matches.map((m) => m.location)).toEqual(locations);
  });
});

describe('pathEngine', () => {
  it('answers simple paths without json-p3 and reports a complex one it was not prepared for as a bug', async () => {
    const engine = await pathEngine(['$.access_token', '$.expires_in']);
    expect(engine.check('$.access_token')).toBeUndefined();
    expect(engine.query('$.access_token', { access_token: 't' })).toEqual([{ value: 't', location: '$.access_token' }]);
    expect(() => engine.query('$..x', {})).toThrow('json-p3 was not loaded for a path that needs it');
  });

  it('loads json-p3 when one path needs it, and still checks the others', async () => {
    const engine = await pathEngine(['$.a', '$.items[?@.kind == "token"].value']);
    expect(engine.check('$[?')).toMatch(/./);
    expect(
      engine.query('$.items[?@.kind == "token"].value', { items: [{ kind: 'token', value: 'v' }] }).map((m) => m.value),
    ).toEqual(['v']);
  });
});
