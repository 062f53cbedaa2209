import type { Answer } from './types.ts';

/**
 * The response headers the API description documents ("Common request rules"): every response
 * carries X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (a Unix
 * timestamp), and a body is `application/json`. Their values legitimately differ (ids, counters,
 * times), so each is compared by form: present or absent, an integer or not, Unix seconds or
 * milliseconds, the media type.
 */
export interface HeaderFinding {
  /** the header's name as the description writes it */
  name: string;
  target: string;
  sandbox: string;
}

const integer = (value: string): string => (/^-?\d+$/.test(value.trim()) ? 'integer' : 'text');

const DOCUMENTED: readonly { name: string; form: (value: string) => string; withBody?: boolean }[] = [
  { name: 'X-Request-ID', form: (value) => (value.trim() === '' ? 'empty' : 'text') },
  { name: 'X-RateLimit-Limit', form: integer },
  { name: 'X-RateLimit-Remaining', form: integer },
  // seconds since 1970 have 10 digits until 2286; 13 digits are milliseconds
  {
    name: 'X-RateLimit-Reset',
    form: (value) =>
      integer(value) === 'integer' ? (value.trim().replace('-', '').length >= 12 ? 'integer (Unix milliseconds)' : 'integer (Unix seconds)') : 'text',
  },
  { name: 'Content-Type', form: (value) => value.split(';')[0]!.trim().toLowerCase() || 'empty', withBody: true },
];

const formOf = (answer: Answer, name: string, form: (value: string) => string): string => {
  const value = answer.headers[name.toLowerCase()];
  return value === undefined ? 'absent' : form(value);
};

export function compareHeaders(target: Answer, sandbox: Answer): HeaderFinding[] {
  const out: HeaderFinding[] = [];
  for (const header of DOCUMENTED) {
    // an answer without a body (204) has no media type to compare
    if (header.withBody && (target.body === undefined || sandbox.body === undefined)) continue;
    const t = formOf(target, header.name, header.form);
    const s = formOf(sandbox, header.name, header.form);
    if (t !== s) out.push({ name: header.name, target: t, sandbox: s });
  }
  return out;
}
