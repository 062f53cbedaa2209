import { describe, expect, it } from 'vitest';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { IdPairs } from '../../src/parity/proxy-ids.ts';
import { targetAnswer } from '../../src/parity/proxy-replay.ts';
import { learnableCollectionOf, mapRecord, recordsIn } from '../../src/parity/proxy-learn.ts';
import { PEOPLE } from '../../src/resources/people/collections.ts';
import type { Collection, StoredRow } from '../../src/storage/collection.ts';

/** The proxy's pure parts: id pairing and the mapping of a target's record onto our schemas. */
const fill = { workspaceId: 'wksp_x', nowIso: '2026-01-15T09:00:00.000Z' };
const people = PEOPLE as unknown as Collection<StoredRow>;

describe('IdPairs', () => {
  it('is bounded: past its cap the pair used longest ago goes (everything a client can grow is bounded)', () => {
    const pairs = new IdPairs(3);
    for (const n of [1, 2, 3]) pairs.pairFrom({ data: { id: `t${n}` } }, { data: { id: `s${n}` } });
    expect(pairs.sandboxIdOf('t1')).toBe('s1'); // used: now the newest
    pairs.pairFrom({ data: { id: 't4' } }, { data: { id: 's4' } });
    expect(pairs.size).toBe(3);
    expect(pairs.sandboxIdOf('t2')).toBeUndefined();
    expect(['t1', 't3', 't4'].map((id) => pairs.sandboxIdOf(id))).toEqual(['s1', 's3', 's4']);
  });

  it('pairs the ids at the same JSON paths of two creates, and maps path, query and body', () => {
    const pairs = new IdPairs();
    const added = pairs.pairFrom(
      { data: { id: 'book_T', code: 'ABC-1', passengers: [{ id: 'psg_T1', person_id: 'ppl_same' }, { id: 'psg_T2' }] } },
      { data: { id: 'book_S', code: 'XYZ-9', passengers: [{ id: 'psg_S1', person_id: 'ppl_same' }, { id: 'psg_S2' }] } },
    );
    expect(added).toBe(3); // codes are not ids; an id the same on both sides needs no pair
    expect(pairs.mapPath('/v1/bookings/book_T/passengers')).toBe('/v1/bookings/book_S/passengers');
    expect(pairs.mapQuery('bookingId=book_T&limit=5')).toBe('bookingId=book_S&limit=5');
    expect(pairs.mapBody({ items: [{ ref: 'psg_T2' }], note: 'book_T!' })).toEqual({ items: [{ ref: 'psg_S2' }], note: 'book_T!' });
    pairs.clear(); // a reset took the sandbox's records away
    expect(pairs.mapPath('/v1/bookings/book_T')).toBe('/v1/bookings/book_T');
  });
});

describe('mapRecord', () => {
  const person = {
    id: 'ppl_1',
    firstName: 'Ada',
    middleName: null,
    lastName: 'Lovelace',
    email: 'ada@example.com',
    phone: '+447700900123',
    date_of_birth: '1815-12-10',
    nationality: 'GB',
  };

  it('takes each field of the same name or its other spelling when it fits, fills the timestamps by rule', () => {
    const { row, unmapped } = mapRecord(people, person, fill);
    expect(row).toMatchObject({ id: 'ppl_1', dateOfBirth: '1815-12-10', createdAt: fill.nowIso });
    expect(unmapped).toEqual([]);
  });

  it('does not guess: a value that does not fit a nullable field leaves it null and names it', () => {
    const { row, unmapped } = mapRecord(people, { ...person, nationality: 'Great Britain' }, fill);
    expect(row).toMatchObject({ nationality: null });
    expect(unmapped).toEqual(['nationality']);
  });

  it('a required field missing: the record is not learned', () => {
    const { row, unmapped } = mapRecord(people, { id: 'ppl_2', firstName: 'No', lastName: 'Mail' }, fill);
    expect(row).toBeNull();
    expect(unmapped).toContain('email');
  });

  it('learns catalog kinds only, and finds records bare, wrapped or in a page', () => {
    expect(learnableCollectionOf('ppl_1')?.name).toBe('people');
    expect(learnableCollectionOf('book_1')).toBeUndefined();
    expect(learnableCollectionOf('whsub_1')).toBeUndefined();
    expect(recordsIn({ id: 'a' })).toHaveLength(1);
    expect(recordsIn({ data: { id: 'a' } })).toHaveLength(1);
    expect(recordsIn({ data: [{ id: 'a' }, { id: 'b' }, { nope: 1 }], pagination: {} })).toHaveLength(2);
  });
});

describe('targetAnswer', () => {
  it('reads a compressed answer for the comparison (the client got the bytes as they came)', () => {
    const body = gzipSync(Buffer.from('{"data":[{"id":"prod_1"}]}'));
    const answer = targetAnswer({ status: 200, headers: { 'content-encoding': 'gzip', 'set-cookie': ['a=1', 'b=2'] }, body });
    expect(answer).toEqual({ status: 200, headers: { 'content-encoding': 'gzip', 'set-cookie': 'a=1, b=2' }, body: { data: [{ id: 'prod_1' }] } });
    expect(targetAnswer({ status: 502, headers: {}, body: Buffer.from('<html>bad gateway</html>') }).body).toBeUndefined();
  });

  it('inflates to the max body at most: past it, no body and tooLarge, for gzip, br and deflate alike', () => {
    const json = Buffer.from(JSON.stringify({ data: 'x'.repeat(8192) }));
    for (const [encoding, squeeze] of [
      ['gzip', gzipSync],
      ['br', brotliCompressSync],
      ['deflate', deflateSync],
    ] as const) {
      const body = squeeze(json);
      expect(targetAnswer({ status: 200, headers: { 'content-encoding': encoding }, body }, 8192), encoding).toEqual({
        status: 200,
        headers: { 'content-encoding': encoding },
        body: undefined,
        tooLarge: { bytes: body.length, complete: true, inflated: encoding },
      });
      expect(targetAnswer({ status: 200, headers: { 'content-encoding': encoding }, body }, 16384).body, encoding).toEqual({ data: 'x'.repeat(8192) });
    }
  });
});
