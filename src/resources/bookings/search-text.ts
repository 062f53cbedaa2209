import { EAGER_BUILD_ROWS, workspaceReplacedBy, type Store, type StoreChange } from '../../storage/index.ts';
import { TextGrams } from '../../core/text-grams.ts';
import { PEOPLE } from '../people/collections.ts';
import type { Person } from '../people/schemas.ts';
import { BOOKINGS } from './collections.ts';
import type { Booking } from './schemas.ts';

/** Workspaces whose search index is kept (least recently used dropped first, rebuilt by one scan). */
const MAX_SEARCHED = 16;

interface Shelf {
  grams: TextGrams;
  /**
   * person id -> ids of bookings that named them when written: a superset of the
   * bookings naming the person now (a booking that moved or went stays until the
   * person's next write looks), so a person's write refreshes exactly their texts;
   * a lone id as is (no array: most people have one or two bookings)
   */
  owners: Map<string, string | string[]>;
}

/**
 * The text `q` searches (API description, "Bookings": search text over code and
 * customer name/e-mail), lower-cased, one string per booking: the code, the
 * customer's full name, first and last name, and e-mail. A page with `q` finds
 * its bookings in a trigram index of these strings (core/text-grams.ts),
 * testing each candidate with `includes`: the substring semantics of a scan,
 * at a cost that follows the matches.
 *
 * Kept from the store's change feed, as the ordered list index: a workspace is
 * built at its first write while it is small (a seed then keeps it as it goes,
 * so the first search after a seed scans nothing), or by its first search. A
 * booking written refreshes its text; a person written refreshes the texts of
 * the bookings that named them (`owners`).
 */
export class BookingSearchText {
  static readonly #shared = new WeakMap<Store, BookingSearchText>();

  static of(store: Store): BookingSearchText {
    let found = BookingSearchText.#shared.get(store);
    if (!found) BookingSearchText.#shared.set(store, (found = new BookingSearchText(store)));
    return found;
  }

  readonly #shelves = new Map<string, Shelf>();

  private constructor(private readonly store: Store) {
    store.onChange((change) => this.#apply(change));
  }

  /** Ids of the workspace's bookings whose search text holds `q` (lower-cased), in no particular order. */
  matching(workspaceId: string, q: string): string[] {
    return this.#shelf(workspaceId).grams.matching(q);
  }

  /** The kept search text of a booking (tests). */
  textOf(workspaceId: string, bookingId: string): string | undefined {
    return this.#shelf(workspaceId).grams.text(bookingId);
  }

  /** Drops a workspace's index, to be rebuilt by its next search (tests, bench/search-probe.ts). */
  forget(workspaceId: string): void {
    this.#shelves.delete(workspaceId);
  }

  /** Whether the workspace's index is built now (tests). */
  isBuilt(workspaceId: string): boolean {
    return this.#shelves.has(workspaceId);
  }

  #shelf(workspaceId: string): Shelf {
    const found = this.#shelves.get(workspaceId);
    if (found) {
      this.#shelves.delete(workspaceId); // most recently used last
      this.#shelves.set(workspaceId, found);
      return found;
    }
    return this.#build(workspaceId);
  }

  #build(workspaceId: string): Shelf {
    const shelf: Shelf = { grams: new TextGrams(), owners: new Map() };
    // people first, in one pass: a person read per booking inflated a packed page each (~10 s at 100k)
    const people = new Map<string, string>();
    for (const person of this.store.scan<Person>(PEOPLE.name, workspaceId)) people.set(person.id, personText(person));
    for (const booking of this.store.scan<Booking>(BOOKINGS.name, workspaceId)) {
      shelf.grams.set(booking.id, `${booking.code}\n${(booking.customerId && people.get(booking.customerId)) || NO_PERSON}`.toLowerCase());
      if (booking.customerId) own(shelf, booking.customerId, booking.id);
    }
    this.#shelves.set(workspaceId, shelf);
    for (const oldest of this.#shelves.keys()) {
      if (this.#shelves.size <= MAX_SEARCHED) break;
      this.#shelves.delete(oldest);
    }
    return shelf;
  }

  /**
   * A booking's text, and its customer's bookings. `row` is the op's row when the booking was just
   * put (no read back: the feed runs after the write is applied, and ops are taken in order), else it
   * is read as committed. `written` holds the people this change wrote (a seed writes a customer
   * with their bookings: no read of a person just written, nor of a packed people page).
   * The booking id is the op's own string, shared with the list index's entry.
   */
  #refresh(workspaceId: string, shelf: Shelf, bookingId: string, row: Booking | undefined, written: ReadonlyMap<string, Person | null>): void {
    const booking = row ?? BOOKINGS.in(this.store).get(workspaceId, bookingId);
    if (!booking) return void shelf.grams.delete(bookingId);
    const customerId = booking.customerId;
    const person = !customerId
      ? undefined
      : written.has(`${workspaceId}/${customerId}`)
        ? (written.get(`${workspaceId}/${customerId}`) ?? undefined)
        : PEOPLE.in(this.store).get(workspaceId, customerId);
    shelf.grams.set(bookingId, searchText(booking, person));
    if (customerId) own(shelf, customerId, bookingId);
  }

  #apply(change: StoreChange): void {
    if (change.kind === 'replaced') {
      this.#shelves.clear(); // a reset or an import: every workspace is rebuilt by its next search or write
      return;
    }
    let builtNow: Set<string> | null = null;
    const written = new Map<string, Person | null>();
    for (const op of change.ops) {
      if (op.collection === PEOPLE.name) written.set(`${op.workspaceId}/${op.type === 'put' ? op.row.id : op.id}`, PEOPLE.rowOf(op) ?? null);
    }
    for (const op of change.ops) {
      const replaced = workspaceReplacedBy(op);
      if (replaced !== undefined) {
        // a created workspace's base rows appear or go without a change per row
        this.#shelves.delete(replaced);
        continue;
      }
      if ((op.collection !== BOOKINGS.name && op.collection !== PEOPLE.name) || builtNow?.has(op.workspaceId)) continue;
      const shelf = this.#shelves.get(op.workspaceId);
      const id = op.type === 'put' ? op.row.id : op.id;
      if (!shelf) {
        // small: build it now from the rows as they stand (this change included), and keep it from here on
        if (op.collection !== BOOKINGS.name || this.store.count(BOOKINGS.name, op.workspaceId) > EAGER_BUILD_ROWS) continue;
        this.#build(op.workspaceId);
        (builtNow ??= new Set()).add(op.workspaceId);
      } else if (op.collection === BOOKINGS.name) {
        if (op.type === 'delete') shelf.grams.delete(id);
        else this.#refresh(op.workspaceId, shelf, id, BOOKINGS.rowOf(op), written);
      } else {
        const named = shelf.owners.get(id);
        if (!named) continue; // a new person: no booking names them yet
        shelf.owners.delete(id);
        for (const bookingId of typeof named === 'string' ? [named] : named) this.#refresh(op.workspaceId, shelf, bookingId, undefined, written);
      }
    }
  }
}

function own(shelf: Shelf, personId: string, bookingId: string): void {
  const named = shelf.owners.get(personId);
  if (named === undefined) shelf.owners.set(personId, bookingId);
  else if (typeof named === 'string') {
    if (named !== bookingId) shelf.owners.set(personId, [named, bookingId]);
  } else if (!named.includes(bookingId)) named.push(bookingId);
}

/** The text `q` is looked for in: code, full name, first and last name, e-mail, lower-cased. */
export function searchText(booking: Booking, person: Person | undefined): string {
  return `${booking.code}\n${person ? personText(person) : NO_PERSON}`.toLowerCase();
}

/** a booking without a customer searches its code alone (the three fields empty) */
const NO_PERSON = '\n\n';

function personText(person: Person): string {
  const name = [person.firstName, person.middleName, person.lastName].filter(Boolean).join(' ');
  return [name, `${person.firstName} ${person.lastName}`, person.email].join('\n');
}
