/**
 * Where things are in a JSON text, as line and column (1-based), so a scenario
 * mistake can be reported as `file:line:column`, and where malformed JSON
 * goes wrong. Over a text the size of a scenario file, recording costs nothing
 * worth measuring.
 */
export type JsonPath = readonly (string | number)[];

export interface Position {
  line: number;
  column: number;
}

export interface JsonLocator {
  /** the start of the value at `path`, else of the nearest enclosing value found */
  value(path: JsonPath): Position;
  /** the start of an object's key (for "unknown key"), else its object's start */
  key(path: JsonPath, key: string): Position;
  /** the `index`th character of the string at `path` (escapes counted as the character they write) */
  inString(path: JsonPath, index: number): Position;
}

export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: Math.min(offset, text.length) - lineStart + 1 };
}

/** Malformed JSON: what was expected, and where. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: Position,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Scans the text as JSON, recording where each value and key starts; a
 * malformed text throws a JsonSyntaxError at the first character that does not
 * fit (JSON.parse names no position for some mistakes, such as `{"a": }`).
 */
export function locateJson(text: string, maxDepth = 64): JsonLocator {
  const values = new Map<string, number>();
  const keys = new Map<string, number>();
  let i = 0;
  const fail = (message: string, at = i): never => {
    throw new JsonSyntaxError(message, positionAt(text, at));
  };
  const found = () => (i >= text.length ? 'the end of the text' : JSON.stringify(text[i]));
  const skipSpace = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const expect = (char: string, what: string) => {
    skipSpace();
    if (text[i] !== char) fail(`expected ${what}, found ${found()}`);
    i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail('a string is not closed', start);
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c < 32) fail('a line break or control character inside a string (write it as \\n)');
      if (c === 92) {
        const next = text[i + 1] ?? '';
        if (next === 'u' ? !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)) : !'"\\/bfnrt'.includes(next) || next === '')
          fail(`invalid escape \\${next} in a string`);
        i += next === 'u' ? 6 : 2;
      } else i++;
    }
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const walk = (path: (string | number)[]): void => {
    skipSpace();
    if (path.length > maxDepth) fail(`nested deeper than ${maxDepth} levels`);
    values.set(JSON.stringify(path), i);
    const c = text[i];
    if (c === '{') {
      i++;
      skipSpace();
      if (text[i] === '}') return void i++;
      for (;;) {
        skipSpace();
        if (text[i] !== '"') fail(`expected a double-quoted key, found ${found()}`);
        const keyStart = i;
        const key = readString();
        keys.set(JSON.stringify([...path, key]), keyStart);
        expect(':', `":" after the key "${key}"`);
        walk([...path, key]);
        skipSpace();
        if (text[i] === '}') return void i++;
        if (text[i] !== ',') fail(`expected "," or "}" after the value of "${key}", found ${found()}`);
        i++;
      }
    }
    if (c === '[') {
      i++;
      skipSpace();
      if (text[i] === ']') return void i++;
      for (let index = 0; ; index++) {
        walk([...path, index]);
        skipSpace();
        if (text[i] === ']') return void i++;
        if (text[i] !== ',') fail(`expected "," or "]" after an array element, found ${found()}`);
        i++;
      }
    }
    if (c === '"') return void readString();
    for (const literal of ['true', 'false', 'null']) if (text.startsWith(literal, i)) return void (i += literal.length);
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    fail(`expected a value, found ${found()}`);
  };
  walk([]);
  skipSpace();
  if (i < text.length) fail(`text after the end of the JSON: ${found()}`);
  const nearest = (path: JsonPath): number => {
    for (let n = path.length; n >= 0; n--) {
      const at = values.get(JSON.stringify(path.slice(0, n)));
      if (at !== undefined) return at;
    }
    return 0;
  };
  return {
    value: (path) => positionAt(text, nearest(path)),
    key: (path, key) => positionAt(text, keys.get(JSON.stringify([...path, key])) ?? nearest(path)),
    inString: (path, index) => {
      const start = values.get(JSON.stringify(path));
      if (start === undefined || text[start] !== '"') return positionAt(text, nearest(path));
      let at = start + 1;
      for (let n = 0; n < index && text[at] !== '"'; n++) at += text[at] !== '\\' ? 1 : text[at + 1] === 'u' ? 6 : 2;
      return positionAt(text, at);
    },
  };
}
