import { warning, type SandboxWarning } from '../../core/warnings.ts';
import { DEFAULT_ADULTS } from '../departures/requests.ts';
import { FULFILLMENT_STATUSES, PAYMENT_STATUSES, QuoteSchema } from './schemas.ts';

/**
 * What POST /v1/bookings (and the wizard's booking details, and a price
 * request) accept only by guessing (docs/api-notes.md, "Warnings"). The description names
 * no payment or fulfillment status values and no add-on list; the sandbox's
 * own lists are guesses, so values outside them are stored with a warning.
 */
// Shapes the description does not state ("preferred language (string)", "role (string), for example
// lead, guest"): the sandbox's guesses, so another value is stored with INFERRED_LIMIT
const LANGUAGE_TAG = /^[a-z]{2}(-[A-Z]{2})?$/;
const ROLE_WORD = /^[a-z][a-z_-]{0,39}$/;
const BOOKING_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const inferredShape = (message: string): SandboxWarning => warning('INFERRED_LIMIT', `${message} (refused under --strict)`);

interface BookingDetails {
  code?: string | undefined;
  language?: string | undefined;
  paymentStatus?: string | undefined;
  fulfillmentStatus?: string | undefined;
  attributes?: Record<string, unknown> | undefined;
}

export function addonWarnings(body: { addonQuantity?: number | undefined; addons?: unknown[] | undefined }, prefix = 'body'): SandboxWarning[] {
  if (!body.addonQuantity || body.addons !== undefined) return [];
  return [warning('ADDONS_NOT_NAMED', `${prefix}.addonQuantity ${body.addonQuantity} came without addons: priced as unnamed add-ons at zero cost`)];
}

export function bookingDetailWarnings(body: BookingDetails, prefix = 'body'): SandboxWarning[] {
  const out: SandboxWarning[] = [];
  const payment: readonly string[] = PAYMENT_STATUSES;
  const fulfillment: readonly string[] = FULFILLMENT_STATUSES;
  if (body.paymentStatus !== undefined && !payment.includes(body.paymentStatus)) {
    out.push(
      warning('UNKNOWN_PAYMENT_STATUS', `${prefix}.paymentStatus "${body.paymentStatus}" stored as sent: the sandbox knows ${PAYMENT_STATUSES.join(', ')}`),
    );
  }
  if (body.fulfillmentStatus !== undefined && !fulfillment.includes(body.fulfillmentStatus)) {
    out.push(
      warning(
        'UNKNOWN_FULFILLMENT_STATUS',
        `${prefix}.fulfillmentStatus "${body.fulfillmentStatus}" stored as sent: the sandbox knows ${FULFILLMENT_STATUSES.join(', ')}`,
      ),
    );
  }
  if (body.code !== undefined && !BOOKING_CODE.test(body.code)) {
    out.push(inferredShape(`${prefix}.code "${body.code}" stored as sent: the sandbox infers letters, digits, dot, dash and underscore`));
  }
  if (body.language !== undefined && !LANGUAGE_TAG.test(body.language)) {
    out.push(inferredShape(`${prefix}.language "${body.language}" stored as sent: the sandbox infers a tag such as en or en-GB`));
  }
  const attributes = body.attributes;
  if (attributes && Object.hasOwn(attributes, 'pricingSnapshot') && !QuoteSchema.safeParse(attributes.pricingSnapshot).success) {
    out.push(
      warning('PRICING_SNAPSHOT_NOT_A_QUOTE', `${prefix}.attributes.pricingSnapshot is not quote-shaped: stored as sent, totals computed by the sandbox`),
    );
  }
  return out;
}

/**
 * A departure priced with no adults count: the description lists the count among the create
 * body's fields and requires none of them, so one adult is assumed (DEFAULT_ADULTS) and said so.
 */
export const assumedAdultsWarnings = (body: { adults?: number | undefined }): SandboxWarning[] =>
  body.adults === undefined
    ? [
        warning(
          'ASSUMED_DEFAULT',
          `body.adults is missing: ${DEFAULT_ADULTS} adult assumed, as the API description lists an adults count but states no default (send adults to choose)`,
        ),
      ]
    : [];

/** POST /v1/departures/:id/price: the same pricing payload as a booking, so the same warnings. */
export const priceWarnings = (body: Parameters<typeof addonWarnings>[0] & { adults?: number | undefined }): SandboxWarning[] => [
  ...assumedAdultsWarnings(body),
  ...addonWarnings(body),
];

export const createBookingWarnings = (
  body: BookingDetails & Parameters<typeof addonWarnings>[0] & { adults?: number | undefined; departureId?: string | undefined },
): SandboxWarning[] => [
  // without a departure nothing is priced yet: the party sent is kept as sent (docs/bookings.md, "Without a departure")
  ...(body.departureId === undefined ? [] : assumedAdultsWarnings(body)),
  ...addonWarnings(body),
  ...bookingDetailWarnings(body),
];

export const wizardWarnings = (body: { booking?: BookingDetails | undefined }): SandboxWarning[] =>
  body.booking ? bookingDetailWarnings(body.booking, 'body.booking') : [];

/** An empty PATCH: nothing to change (the description requires "at least one" only of the webhook PATCH). */
export const patchBookingWarnings = (body: { status?: unknown; notes?: unknown }): SandboxWarning[] =>
  body.status === undefined && body.notes === undefined
    ? [warning('INFERRED_LIMIT', 'the PATCH names neither status nor notes, so it changes nothing; the sandbox infers at least one (refused under --strict)')]
    : [];

/** An empty passenger list: nothing to create or update (the description gives no minimum); a role not a lower-case word. */
export const passengersWarnings = (body: { passengers: { role?: string | undefined }[] }): SandboxWarning[] => {
  if (body.passengers.length === 0) {
    return [warning('INFERRED_LIMIT', 'passengers is empty, so nothing is created or updated; the sandbox infers at least one (refused under --strict)')];
  }
  return body.passengers.flatMap((p, i) =>
    p.role === undefined || ROLE_WORD.test(p.role)
      ? []
      : [inferredShape(`body.passengers.${i}.role "${p.role}" stored as sent: the sandbox infers a lower-case word such as lead or guest`)],
  );
};
