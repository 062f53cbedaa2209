import { describe, expect, it } from 'vitest';
import { CommitGroup } from '../../src/storage/commit-group.ts';
import { JournalQueue, journalText } from '../../src/storage/journal-queue.ts';
import { parseJournal } from '../../src/storage/journal-text.ts';

const put = (id: string) => JSON.stringify({ type: 'put', collection: 'c', workspaceId: 'w', row: { id } });
const plain = (seq: number, id: string) => ({ line: `{"seq":${seq},"ops":[${put(id)}]}\n`, group: null });
const grouped = (group: CommitGroup, seq: number, id: string) => ({ group, seq, opsJson: put(id) });
const ids = (text: string, base = 0) => parseJournal(text, 'j', base).entries.map((e) => e.ops.map((op) => (op as { row: { id: string } }).row.id));

describe('the journal queue (one request, one commit)', () => {
  it('holds a group and what follows it until the group is released, then writes the group as one line', () => {
    const q = new JournalQueue();
    const g = new CommitGroup();
    void q.add(plain(1, 'a'));
    void q.add(grouped(g, 2, 'b'));
    void q.add(grouped(g, 3, 'c'));
    void q.add(plain(4, 'd'));
    const first = q.takeReady();
    expect(journalText(first).text).toBe(plain(1, 'a').line);
    expect(q.takeReady()).toEqual([]); // the group is open: nothing behind it either
    void q.release(g);
    const rest = journalText(q.takeReady());
    expect(rest.commits).toBe(3);
    expect(rest.text.split('\n').filter(Boolean)).toHaveLength(2);
    expect(ids(journalText(first).text + rest.text)).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('when a group commits again after others, everything between joins its line, in commit order', () => {
    const q = new JournalQueue();
    const a = new CommitGroup();
    const b = new CommitGroup();
    void q.add(grouped(a, 1, 'a1'));
    void q.add(grouped(b, 2, 'b1'));
    void q.add(plain(3, 'p'));
    void q.add(grouped(a, 4, 'a2'));
    void q.release(a);
    expect(q.takeReady()).toEqual([]); // b is in the same line now, and still open
    void q.release(b);
    const { text, commits } = journalText(q.takeReady());
    expect(commits).toBe(4);
    expect(text).toMatch(/^\{"seq":4,"from":1,/);
    expect(ids(text)).toEqual([['a1', 'b1', 'p', 'a2']]);
  });

  it('a group still open at close is dropped, and its seqs stay so the journal still loads', () => {
    const q = new JournalQueue();
    const cut = new CommitGroup();
    void q.add(grouped(cut, 1, 'x'));
    void q.add(plain(2, 'kept'));
    expect(q.abandonOpen()).toBe(1);
    const { text } = journalText(q.takeReady());
    expect(ids(text)).toEqual([[], ['kept']]);
  });

  it('the unit promise resolves the waiters of everything absorbed into it', async () => {
    const q = new JournalQueue();
    const g = new CommitGroup();
    void q.add(grouped(g, 1, 'a'));
    const plainDone = q.add(plain(2, 'p'));
    void q.add(grouped(g, 3, 'b'));
    void q.release(g);
    for (const unit of q.takeReady()) unit.resolve();
    await expect(plainDone).resolves.toBeUndefined();
  });
});

describe('a request line in the journal', () => {
  it('covers the seqs from "from" to "seq"; the next line continues after it', () => {
    const text = `{"seq":3,"from":1,"ops":[${put('a')}]}\n{"seq":4,"ops":[${put('b')}]}\n`;
    expect(parseJournal(text, 'j', 0).entries.map((e) => e.seq)).toEqual([3, 4]);
    expect(() => parseJournal(`{"seq":3,"from":2,"ops":[]}\n`, 'j', 0)).toThrow(/continues at seq 2/);
    expect(() => parseJournal(`{"seq":3,"from":4,"ops":[]}\n`, 'j', 0)).toThrow(/"from" 4/);
  });

  it('one that straddles the snapshot (a compaction cut before the journal was emptied) is applied again', () => {
    const text = `{"seq":3,"from":1,"ops":[${put('a')}]}\n`;
    expect(parseJournal(text, 'j', 2).entries.map((e) => e.seq)).toEqual([3]);
    expect(parseJournal(text, 'j', 3).entries).toEqual([]);
  });
});
