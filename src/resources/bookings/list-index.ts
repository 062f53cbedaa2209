import { OrderedIndex } from '../../storage/ordered-index.ts';
import type { Store, StoreChange } from '../../storage/types.ts';
import { GLOBAL_PARTITION } from '../../storage/types.ts';
import { OVERLAYS_COLLECTION } from '../../storage/overlay-records.ts';
import { PEOPLE } from '../people/collections.ts';
import type { Person } from '../people/schemas.ts';
import { BOOKINGS } from './collections.ts';
import type { Booking } from './schemas.ts';

/** What `GET /v1/bookings` sorts and filters on, one per booking (issue 27: pages cost the page). */
export interface BookingEntry {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly status: string;
  readonly productId: string | null;
}

/** The booking list index of a store: by createdAt and updatedAt, each also per status. */
export const bookingListIndex = (store: Store) =>
  OrderedIndex.of<Booking, BookingEntry>(store, BOOKINGS.name, 'list', {
    entry: (b) => ({ id: b.id, createdAt: b.createdAt, updatedAt: b.updatedAt, status: b.status, productId: b.productId }),
    orders: { createdAt: (e) => e.createdAt, updatedAt: (e) => e.updatedAt },
    bucket: (e) => e.status,
  });

/** Workspaces whose search text is kept (least recently searched dropped first). */
const MAX_SEARCHED = 16;

/**
 * The text `q` searches (API description: "search text over code and customer
 * name/e-mail"), lower-cased, one string per booking: the code, the customer's
 * full name, first and last name, and e-mail. A page with `q` walks the index
 * and tests these strings; it reads no booking and no person (a person read per
 * booking inflated the packed people pages).
 *
 * Built for a workspace by its first search (one scan of its bookings and their
 * customers), then kept from the change feed: a booking written refreshes its
 * text; a person written or deleted drops the workspace's texts (bookings do not
 * say which of them name that person without a second index), rebuilt by the
 * next search. People change rarely once seeded.
 */
export class BookingSearchText {
  static readonly #shared = new WeakMap<Store, BookingSearchText>();

  static of(store: Store): BookingSearchText {
    let found = BookingSearchText.#shared.get(store);
    if (!found) BookingSearchText.#shared.set(store, (found = new BookingSearchText(store)));
    return found;
  }

  readonly #texts = new Map<string, Map<string, string>>();

  private constructor(private readonly store: Store) {
    store.onChange((change) => this.#apply(change));
  }

  /** The lower-cased search text of each booking of the workspace, by id. */
  texts(workspaceId: string): ReadonlyMap<string, string> {
    let texts = this.#texts.get(workspaceId);
    if (texts) {
      this.#texts.delete(workspaceId);
      this.#texts.set(workspaceId, texts);
      return texts;
    }
    texts = new Map();
    // people first, in one pass: a person read per booking inflated a packed page each (~10 s at 100k)
    const people = new Map<string, string>();
    for (const person of this.store.scan<Person>(PEOPLE.name, workspaceId)) people.set(person.id, personText(person));
    for (const booking of this.store.scan<Booking>(BOOKINGS.name, workspaceId)) {
      texts.set(booking.id, `${booking.code}\n${(booking.customerId && people.get(booking.customerId)) || NO_PERSON}`.toLowerCase());
    }
    this.#texts.set(workspaceId, texts);
    for (const oldest of this.#texts.keys()) {
      if (this.#texts.size <= MAX_SEARCHED) break;
      this.#texts.delete(oldest);
    }
    return texts;
  }

  /** Ids of the workspace's bookings whose search text holds `q` (lower-cased). */
  matching(workspaceId: string, q: string): string[] {
    const out: string[] = [];
    for (const [id, text] of this.texts(workspaceId)) if (text.includes(q)) out.push(id);
    return out;
  }

  #text(workspaceId: string, booking: Booking): string {
    return searchText(booking, booking.customerId ? PEOPLE.in(this.store).get(workspaceId, booking.customerId) : undefined);
  }

  #apply(change: StoreChange): void {
    if (change.kind === 'replaced') {
      this.#texts.clear();
      return;
    }
    for (const op of change.ops) {
      if (op.collection === OVERLAYS_COLLECTION && op.workspaceId === GLOBAL_PARTITION) this.#texts.delete(op.type === 'put' ? op.row.id : op.id);
      const texts = this.#texts.get(op.workspaceId);
      if (!texts) continue;
      if (op.collection === PEOPLE.name) this.#texts.delete(op.workspaceId);
      else if (op.collection !== BOOKINGS.name) continue;
      else if (op.type === 'delete') texts.delete(op.id);
      else {
        const booking = BOOKINGS.in(this.store).get(op.workspaceId, op.row.id); // as committed (a booking put, applied before the feed)
        if (booking) texts.set(booking.id, this.#text(op.workspaceId, booking));
      }
    }
  }
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
