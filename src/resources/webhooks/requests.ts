import { z } from 'zod';
import { warning, type SandboxWarning } from '../../core/warnings.ts';
import { eventNameProblem, matchesNoKnownEvent } from '../../webhooks/matching.ts';

/**
 * Request bodies of the subscription endpoints (API description, "Webhook
 * subscriptions"): camelCase `maxRetries` in requests, snake_case
 * `max_retries` in responses. The URL scheme rule (HTTPS; http only for
 * loopback unless strictWebhookUrls) depends on options and is checked by the
 * service. Limits on lengths and counts are the sandbox's choice (docs/webhooks.md).
 */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** Set by the sender on every delivery; a subscription cannot override them. */
export const RESERVED_HEADERS = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'content-length',
  'user-agent',
  'host',
  'connection',
  'transfer-encoding',
];

const UrlField = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => URL.canParse(value), 'url must be an absolute URL');

const EventsField = z
  .array(
    z.string().superRefine((pattern, ctx) => {
      const problem = eventNameProblem(pattern);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  )
  .min(1, 'events needs at least one event name or pattern')
  .max(50);

const HeadersField = z
  .record(
    z.string().regex(HEADER_NAME, 'header names must be HTTP tokens'),
    z
      .string()
      .max(1000)
      .regex(/^[^\r\n]*$/, 'header values cannot contain line breaks'),
  )
  .refine((h) => Object.keys(h).length <= 20, 'at most 20 custom headers')
  .refine((h) => Object.keys(h).every((name) => !RESERVED_HEADERS.includes(name.toLowerCase())), `headers cannot set ${RESERVED_HEADERS.join(', ')}`);

const MaxRetriesField = z.number().int().min(0).max(10);
const DescriptionField = z.string().max(500);

export const UpdateSubscriptionBodySchema = z
  .object({
    url: UrlField,
    events: EventsField,
    headers: HeadersField.nullable(),
    maxRetries: MaxRetriesField,
    description: DescriptionField.nullable(),
    active: z.boolean(),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'at least one field is required: url, events, headers, maxRetries, description, active')
  // the refine does not reach the OpenAPI document; this says it there (test/openapi/required.test.ts)
  .meta({ minProperties: 1 });
export type UpdateSubscriptionBody = z.infer<typeof UpdateSubscriptionBodySchema>;

/** POST body (inferred): url and events required; maxRetries defaults to 5, active to true. */
export const CreateSubscriptionBodySchema = z
  .object({
    url: UrlField,
    events: EventsField,
    headers: HeadersField.nullable().optional(),
    maxRetries: MaxRetriesField.default(5),
    description: DescriptionField.nullable().optional(),
    active: z.boolean().default(true),
  })
  .meta({ 'x-sandbox-inferred': true });
export type CreateSubscriptionBody = z.infer<typeof CreateSubscriptionBodySchema>;

/** Well-formed names the sandbox never emits are stored with a warning (docs/api-notes.md, "Warnings"). */
export function eventWarnings(body: { events?: readonly string[] | undefined }): SandboxWarning[] {
  const unknown = (body.events ?? []).filter(matchesNoKnownEvent);
  if (unknown.length === 0) return [];
  return [
    warning(
      'UNKNOWN_EVENT_TYPE',
      `body.events ${unknown.map((e) => `"${e}"`).join(', ')} stored, but the sandbox never emits a matching event (the ones it emits: docs/webhooks.md)`,
    ),
  ];
}
