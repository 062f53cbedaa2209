import { describe, expect, it } from 'vitest';
import { jsonSyntaxProblem } from '../../src/http/json-syntax.ts';

/** Where a refused JSON body breaks, found by the grammar (Node 20's JSON.parse often names no position). */
describe('jsonSyntaxProblem', () => {
  it('finds nothing wrong in what JSON.parse takes', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"], "b": {}} ', '"s"', '0', '[[[]]]']) {
      JSON.parse(text);
      expect(jsonSyntaxProblem(text), text).toBeNull();
    }
  });

  it.each([
    ['{"a": 1,}', 8, 'expected a property name in double quotes, found "}" (a comma before "}")'],
    ["{'a': 1}", 1, 'expected a property name in double quotes, found "\'"'],
    ['{"a" 1}', 5, 'expected ":" after the property name, found "1"'],
    ['[1 2]', 3, 'expected "," or "]", found "2"'],
    ['{"a": tru}', 6, 'expected a value, found "t"'],
    ['{"a": 1} x', 9, 'more after the JSON value, found "x"'],
    ['{"a": "b\nc"}', 8, 'a control character (a line break or tab) inside a string: escape it (\\n, \\t)'],
    ['{"a": "\\x"}', 7, 'an escape JSON does not have (\\x)'],
    ['{"a": "b', 8, 'the body ends inside a string'],
    ['[1,\n 2,\n', 8, 'the body ends before its JSON does'],
  ])('%j breaks at %i: %s', (text, at, problem) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonSyntaxProblem(text)).toMatchObject({ at, problem });
  });

  it('counts lines and columns from 1', () => {
    expect(jsonSyntaxProblem('{\n  "a": 1,\n  "b": }')).toEqual({ at: 19, line: 3, column: 8, problem: 'expected a value, found "}"' });
  });

  it('walks a deeply nested body without overflowing the stack', () => {
    expect(jsonSyntaxProblem(`${'['.repeat(200_000)}x`)).toMatchObject({ at: 200_000 });
  });
});
