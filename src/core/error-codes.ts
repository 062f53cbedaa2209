/**
 * The catalogue of stable error codes (issue 10, point 9; docs/api-notes.md
 * "Error codes"). The API description's "complete error-code catalogue" is
 * "not shown"; it shows one code, VALIDATION_400. Every other code here is the
 * sandbox's and sits next to `error` in the body. Bodies the description
 * spells out stay exactly as documented, without a code: 401 {error:
 * "Unauthorized"}, 403 {error: "Forbidden"}, 429 {error, retry_after}, 404
 * {error}, and the analytics 400 for missing parameters {error}.
 */
export const ERROR_CODES = {
  VALIDATION_400: [400, 'the body, query or path fails its schema (details name each field); in strict mode, a request the sandbox would accept only by guessing'],
  MALFORMED_JSON: [400, 'the body is not valid JSON'],
  MALFORMED_URL: [400, 'the URL cannot be decoded'],
  URI_TOO_LONG: [414, 'a path segment is longer than 200 characters'],
  CONTENT_LENGTH_MISMATCH: [400, 'Content-Length does not match the body'],
  INVALID_ID: [400, 'an id has the wrong prefix or is not a UUID'],
  INVALID_SORT: [400, 'sort names a field the list cannot be sorted by'],
  INVALID_DATE: [400, 'analytics: from or to is not a YYYY-MM-DD date'],
  INVALID_DATE_RANGE: [400, 'analytics: from is after to, or the range is too long'],
  MISSING_WORKSPACE_HEADER: [400, 'an internal service key was sent without x-workspace-id'],
  IDEMPOTENCY_KEY_INVALID: [400, 'Idempotency-Key is empty or too long'],
  IDEMPOTENCY_IN_PROGRESS: [409, 'a request with this Idempotency-Key is still running'],
  IDEMPOTENCY_KEY_REUSED: [422, 'the Idempotency-Key was used with a different request'],
  PAYLOAD_TOO_LARGE: [413, 'the body is larger than the limit'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'the body is not application/json'],
  PRODUCT_NOT_BOOKABLE: [409, 'the product is not active'],
  DEPARTURE_CANCELLED: [409, 'the departure is cancelled'],
  DEPARTURE_DEPARTED: [409, 'the departure has already left'],
  SOLD_OUT: [409, 'the departure has no seats left'],
  NOT_ENOUGH_SEATS: [409, 'fewer seats are left than the party needs'],
  INVALID_PARTY: [400, 'the party cannot be priced: no adult, more infants than adults, or an age group the product does not price'],
  PRODUCT_NOT_PRICEABLE: [400, 'the product has no adult price'],
  NO_ACCOMMODATION: [400, 'room fields were sent for a product without rooms'],
  UNKNOWN_ROOM_CATEGORY: [400, 'the room category is not offered'],
  INVALID_ROOMS: [400, 'rooms, occupancy and the party do not fit together'],
  ADDON_QUANTITY_MISMATCH: [400, 'addonQuantity differs from the sum of addons[].quantity'],
  ADDON_NOT_OFFERED: [400, 'the extension is not offered on the product'],
  ADDON_UNAVAILABLE: [400, 'the extension is not available'],
  ADDON_LISTED_TWICE: [400, 'the same extension is listed twice'],
  ADDON_QUANTITY_EXCEEDED: [400, 'more of an add-on than its maximum for the party'],
  UNKNOWN_COUPON: [400, 'no coupon has this code'],
  COUPON_INACTIVE: [400, 'the coupon is not active'],
  COUPON_EXPIRED: [400, 'the coupon has expired'],
  COUPON_CURRENCY_MISMATCH: [400, 'a fixed-amount coupon in another currency'],
  CURRENCY_MISMATCH: [400, "the booking's currency is not the departure's"],
  DUPLICATE_BOOKING_CODE: [409, 'a booking with this code exists'],
  INVALID_TRANSITION: [409, 'the booking cannot move to that status (the body lists from, to and allowed)'],
  BOOKING_CLOSED: [409, 'the booking is cancelled or completed and cannot change'],
  PASSENGER_LISTED_TWICE: [400, 'the same person is listed twice'],
  TOO_MANY_PASSENGERS: [409, 'more passengers than travellers'],
  ONE_LEAD_PASSENGER: [409, 'more than one lead passenger'],
  ITEM_DEPARTURE_MISMATCH: [400, "a departure item names another departure than the booking's"],
  WIZARD_DEPARTURE_REQUIRED: [400, 'the wizard session has no departure yet'],
  WIZARD_DEPARTURE_MISMATCH: [400, "the departure is not one of the session's product"],
  WIZARD_SESSION_COMPLETED: [409, 'the wizard session already made its booking'],
  WIZARD_SESSION_EXPIRED: [409, 'the wizard session has expired'],
  DUPLICATE_FOLDER_NAME: [409, 'a gallery folder with this name exists under the same parent'],
  DUPLICATE_FORM_SLUG: [409, 'a form with this slug exists'],
  DUPLICATE_PERSON_EMAIL: [409, 'a person with this e-mail exists'],
  KEY_ALREADY_REVOKED: [409, 'the organization key is already revoked'],
  SUBSCRIPTION_GONE: [409, 'the delivery cannot be replayed: its subscription was deleted'],
  INVALID_CODE: [400, 'verification: the code is wrong, or nothing is pending'],
  CODE_EXPIRED: [400, 'verification: the code has expired'],
  TOO_MANY_ATTEMPTS: [400, 'verification: too many wrong codes'],
  INVALID_NUMBER: [400, 'verification: the number cannot receive SMS'],
  UNDELIVERABLE: [422, 'verification: the message could not be delivered'],
  CONTROL_INVALID: [400, 'control plane: a request it cannot carry out (the message says why)'],
  CONTROL_CONFLICT: [409, 'control plane: the state does not allow it (the message says why)'],
  INTERNAL_ERROR: [500, 'an unexpected failure; the message is never sent'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
