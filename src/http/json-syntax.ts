import { badRequest, type ApiError } from '../core/errors.ts';

/**
 * Where a JSON body breaks (MALFORMED_JSON's reason says the line and column). Node 20's
 * JSON.parse often names no position ("Unexpected token '}', ... is not valid JSON"), so a body
 * JSON.parse refused is walked once more here, by the grammar, to the first character that cannot
 * be JSON. Only refused bodies are walked: a good body costs nothing. Iterative, so a deeply
 * nested body cannot overflow the stack.
 */
export interface JsonSyntaxProblem {
  /** the character offset where the body stops being JSON (its length when it ends early) */
  at: number;
  line: number;
  column: number;
  problem: string;
}

type Expect = 'value' | 'firstValueOrEnd' | 'key' | 'firstKeyOrEnd' | 'colon' | 'commaOrEnd' | 'done';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ['true', 'false', 'null'] as const;

export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | null {
  const stack: ('{' | '[')[] = [];
  let expect: Expect = 'value';
  let i = 0;
  const where = (at: number, problem: string): JsonSyntaxProblem => ({ at, problem, ...lineAndColumn(text, at) });
  const after = (): Expect => (stack.length > 0 ? 'commaOrEnd' : 'done');
  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
    if (i >= text.length) return expect === 'done' ? null : where(i, 'the body ends before its JSON does');
    const ch = text[i]!;
    const found = `found ${JSON.stringify(ch)}`;
    switch (expect) {
      case 'value':
      case 'firstValueOrEnd': {
        if (expect === 'firstValueOrEnd' && ch === ']') {
          stack.pop();
          i++;
          expect = after();
        } else if (ch === '{' || ch === '[') {
          stack.push(ch);
          i++;
          expect = ch === '{' ? 'firstKeyOrEnd' : 'firstValueOrEnd';
        } else if (ch === '"') {
          const end = stringEnd(text, i);
          if (typeof end !== 'number') return where(end.at, end.problem);
          i = end;
          expect = after();
        } else {
          NUMBER.lastIndex = i;
          const number = NUMBER.exec(text)?.[0];
          const literal = LITERALS.find((word) => text.startsWith(word, i));
          if (!number && !literal) return where(i, `expected a value, ${found}${ch === "'" ? ' (JSON strings take double quotes)' : ''}`);
          i += (number ?? literal)!.length;
          expect = after();
        }
        break;
      }
      case 'key':
      case 'firstKeyOrEnd': {
        if (expect === 'firstKeyOrEnd' && ch === '}') {
          stack.pop();
          i++;
          expect = after();
          break;
        }
        if (ch !== '"') return where(i, `expected a property name in double quotes, ${found}${expect === 'key' && ch === '}' ? ' (a comma before "}")' : ''}`);
        const end = stringEnd(text, i);
        if (typeof end !== 'number') return where(end.at, end.problem);
        i = end;
        expect = 'colon';
        break;
      }
      case 'colon':
        if (ch !== ':') return where(i, `expected ":" after the property name, ${found}`);
        i++;
        expect = 'value';
        break;
      case 'commaOrEnd': {
        const close = stack.at(-1) === '{' ? '}' : ']';
        if (ch === ',') {
          i++;
          expect = close === '}' ? 'key' : 'value';
        } else if (ch === close) {
          stack.pop();
          i++;
          expect = after();
        } else return where(i, `expected "," or "${close}", ${found}`);
        break;
      }
      case 'done':
        return where(i, `more after the JSON value, ${found}`);
    }
  }
}

/** The index after the string opening at `start`, or where and why it is not a JSON string. */
function stringEnd(text: string, start: number): number | { at: number; problem: string } {
  for (let j = start + 1; j < text.length; j++) {
    const c = text[j]!;
    if (c === '"') return j + 1;
    if (c === '\\') {
      const next = text[j + 1];
      if (next === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) return { at: j, problem: 'a \\u escape needs four hex digits' };
        j += 5;
      } else if (next !== undefined && '"\\/bfnrt'.includes(next)) j++;
      else return { at: j, problem: `an escape JSON does not have (\\${next ?? ''})` };
    } else if (c.charCodeAt(0) < 0x20) return { at: j, problem: 'a control character (a line break or tab) inside a string: escape it (\\n, \\t)' };
  }
  return { at: text.length, problem: 'the body ends inside a string' };
}

function lineAndColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1 };
}

/** The documented 400 (its body unchanged); where the body breaks goes in the reason. */
export function malformedJsonBody(text: string): ApiError {
  const found = jsonSyntaxProblem(text);
  const where = found ? `${found.problem}, at line ${found.line}, column ${found.column} (character ${found.at})` : 'the body is not valid JSON';
  return badRequest('MALFORMED_JSON', 'Malformed JSON body').because('MALFORMED_JSON', where);
}
