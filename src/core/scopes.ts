/**
 * Scope matching (API description, "Authentication" 4): scopes are
 * `<resource>:<action>`; wildcards `products:*`, `*:read` and `*` are supported.
 * A workspace key created without scopes is a full-access key (scopes are
 * "optional" on workspace keys); a scoped key gets only what it was granted.
 */
export const SCOPE_PATTERN = /^(\*|[a-z][a-z_-]*:(\*|[a-z][a-z_-]*)|\*:[a-z][a-z_-]*)$/;

export function scopeGrants(granted: string, required: string): boolean {
  if (granted === '*' || granted === required) return true;
  const [gResource, gAction] = granted.split(':');
  const [rResource, rAction] = required.split(':');
  return (gResource === '*' || gResource === rResource) && (gAction === '*' || gAction === rAction);
}

export function hasScope(granted: readonly string[] | null, required: string): boolean {
  if (granted === null) return true;
  return granted.some((scope) => scopeGrants(scope, required));
}
