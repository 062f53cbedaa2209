/**
 * A request with no body (zero bytes, with or without `Content-Type: application/json`) on a
 * route whose every body field is optional or has a default is that route's defaults: the body
 * `{}` (docs/api-notes.md, "Requests and responses"). The API description gives
 * `POST /v1/organizations/:id/api-keys` a default for every field, so nothing needs sending;
 * a route with a required field still answers an empty body with 400 VALIDATION_400.
 */
const accepts = new WeakMap<object, boolean>();

/** Whether the route's body schema (a zod schema) accepts `{}`; kept per schema object. */
export function acceptsEmptyObject(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  let known = accepts.get(schema);
  if (known === undefined) {
    const parse = (schema as { safeParse?: (value: unknown) => { success: boolean } }).safeParse;
    try {
      known = typeof parse === 'function' && parse.call(schema, {}).success;
    } catch {
      known = false;
    }
    accepts.set(schema, known);
  }
  return known;
}
