import { describe, expect, it } from 'vitest';
import { parseJournal } from '../../src/storage/journal-text.ts';
import { StoreError } from '../../src/storage/types.ts';

/**
 * The journal's text (src/storage/journal-text.ts; cases a mutation test found unchecked):
 * one line per acknowledged commit, a torn final line dropped, anything else
 * that does not fit is corruption, named with its line.
 */
const put = (id: string) => ({ type: 'put', collection: 'products', workspaceId: 'ws_1', row: { id } });
const entry = (seq: number, ops: unknown[] = [put(`p${seq}`)]) => JSON.stringify({ seq, ops });
const text = (...lines: string[]) => lines.map((l) => `${l}\n`).join('');

function corruption(journal: string, baseSeq = 0): string {
  try {
    parseJournal(journal, 'j.log', baseSeq);
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    return (err as Error).message;
  }
  throw new Error('parsed without an error');
}

describe('parseJournal', () => {
  it('an empty journal has no entries and no torn tail', () => {
    expect(parseJournal('', 'j.log', 0)).toEqual({ entries: [], tornTail: false });
    expect(parseJournal('', 'j.log', 5)).toEqual({ entries: [], tornTail: false });
  });

  it('reads complete lines in order', () => {
    expect(parseJournal(text(entry(1), entry(2)), 'j.log', 0)).toEqual({
      entries: [
        { seq: 1, ops: [put('p1')] },
        { seq: 2, ops: [put('p2')] },
      ],
      tornTail: false,
    });
  });

  it('an entry may hold no ops, or a delete', () => {
    const del = { type: 'delete', collection: 'products', workspaceId: 'ws_1', id: 'p1' };
    expect(parseJournal(text(entry(1, []), entry(2, [del])), 'j.log', 0).entries).toEqual([
      { seq: 1, ops: [] },
      { seq: 2, ops: [del] },
    ]);
  });

  it('drops a final line without its newline, whether it parses or not', () => {
    expect(parseJournal(`${text(entry(1))}{"seq":2,"op`, 'j.log', 0)).toEqual({ entries: [{ seq: 1, ops: [put('p1')] }], tornTail: true });
    expect(parseJournal(`${text(entry(1))}${entry(2)}`, 'j.log', 0)).toEqual({ entries: [{ seq: 1, ops: [put('p1')] }], tornTail: true });
    expect(parseJournal('{"se', 'j.log', 0)).toEqual({ entries: [], tornTail: true });
  });

  it('skips entries the snapshot already holds', () => {
    expect(parseJournal(text(entry(3), entry(4), entry(5), entry(6)), 'j.log', 4)).toEqual({
      entries: [
        { seq: 5, ops: [put('p5')] },
        { seq: 6, ops: [put('p6')] },
      ],
      tornTail: false,
    });
    expect(parseJournal(text(entry(3), entry(4)), 'j.log', 4)).toEqual({ entries: [], tornTail: false });
  });

  it('a complete line that is not JSON is corruption, named with its line', () => {
    const message = corruption(text(entry(1), 'not json', entry(3)));
    expect(message).toMatch(/^Cannot open database: journal j\.log is corrupt at line 2: not valid JSON \(.+\)$/);
    expect(corruption(text(''))).toMatch(/^Cannot open database: journal j\.log is corrupt at line 1: not valid JSON \(/);
  });

  it('a line that is JSON but not an entry is corruption', () => {
    const shape = 'not a journal entry ({"seq":n,"ops":[...]})';
    for (const line of ['[1]', 'null', '3', '{"ops":[]}', '{"seq":"1","ops":[]}', '{"seq":1.5,"ops":[]}', '{"seq":1,"ops":{}}', '{"seq":1}']) {
      expect(corruption(text(line)), line).toBe(`Cannot open database: journal j.log is corrupt at line 1: ${shape}`);
    }
  });

  it('an op that is not an op is corruption, named with its index', () => {
    expect(corruption(text(entry(1), entry(2, [put('a'), { type: 'put', collection: 'products', workspaceId: 'ws_1', row: {} }])))).toBe(
      'Cannot open database: journal j.log is corrupt at line 2: op 1 has a row without a string id',
    );
    expect(corruption(text(entry(1, [{ type: 'drop' }])))).toBe('Cannot open database: journal j.log is corrupt at line 1: op 0 has no collection');
  });

  it('a seq that skips one is corruption', () => {
    expect(corruption(text(entry(1), entry(3)))).toBe('Cannot open database: journal j.log is corrupt at line 2: expected seq 2, found 3');
    expect(corruption(text(entry(1), entry(2), entry(2)))).toBe('Cannot open database: journal j.log is corrupt at line 3: expected seq 3, found 2');
  });

  it('a seq that goes back below the snapshot after newer entries is corruption', () => {
    expect(corruption(text(entry(4), entry(5), entry(3)), 3)).toBe('Cannot open database: journal j.log is corrupt at line 3: seq 3 goes backwards');
  });

  it('a journal that does not continue the snapshot belongs to another one', () => {
    expect(corruption(text(entry(7)), 4)).toBe(
      'Cannot open database: journal j.log is corrupt at line 1: journal continues at seq 7 but the snapshot is at seq 4; the journal does not belong to this snapshot',
    );
    expect(corruption(text(entry(2)), 0)).toContain('journal continues at seq 2 but the snapshot is at seq 0');
  });
});
