import type { Clock } from '../../core/clock.ts';
import { conflict } from '../../core/errors.ts';
import { emitDomainEvent, type EventBus } from '../../core/events.ts';
import { newId, parseId } from '../../core/ids.ts';
import { FieldIndex, textKey, type Store } from '../../storage/index.ts';
import type { CreatePersonBody } from './requests.ts';
import type { Person } from './schemas.ts';
import { PEOPLE } from './collections.ts';
import { unknownRecord } from '../../core/reasons.ts';

/** People (API description, "Person"): read through the API, created through the control plane. */
export class PeopleService {
  private readonly emails: FieldIndex<Person>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly bus: EventBus,
  ) {
    this.emails = FieldIndex.on(store, PEOPLE, 'email', (person) => textKey(person.email)?.toLowerCase());
  }

  /** A person of the workspace; another workspace's person is simply not found (404), a wrong prefix is a 400. */
  get(workspaceId: string, rawId: unknown, field = 'id'): Person {
    const id = parseId(PEOPLE, field, rawId);
    const person = PEOPLE.in(this.store).get(workspaceId, id);
    if (!person) throw unknownRecord(`Person ${id}`, id, PEOPLE, field, workspaceId, 'person');
    return person;
  }

  /** E-mail addresses are unique per workspace (case-insensitive): a duplicate is a 409. Emits customer.created. */
  async create(workspaceId: string, body: CreatePersonBody): Promise<Person> {
    const email = body.email.toLowerCase();
    if (this.emails.has(workspaceId, email)) throw conflict('DUPLICATE_PERSON_EMAIL', `A person with e-mail ${body.email} already exists`);
    const now = this.clock.iso();
    const person: Person = {
      id: newId(PEOPLE),
      firstName: body.firstName,
      middleName: body.middleName ?? null,
      lastName: body.lastName,
      email: body.email,
      phone: body.phone ?? null,
      dateOfBirth: body.dateOfBirth ?? null,
      nationality: body.nationality ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.commit([PEOPLE.putOp(workspaceId, person)]);
    emitDomainEvent(this.bus, this.clock, workspaceId, 'customer.created', person);
    return person;
  }
}
