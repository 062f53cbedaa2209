import { isIP } from 'node:net';
import { undiciAgentWithLookup } from '../core/http-client.ts';
import type { SelfGuard } from '../core/self-guard.ts';
import { send, type SendInput, type SendResult } from './delivery.ts';

/**
 * One delivery attempt that may not reach the sandbox itself (docs/webhooks.md,
 * "Receivers on this machine"): the URL is checked again at delivery time, and
 * a host name is resolved through a guarded lookup at connect time, so a name
 * that resolves to this sandbox after the subscription was saved (DNS
 * rebinding) is refused too. A refusal is a failed attempt with its reason.
 */
export async function sendGuarded(guard: SelfGuard, input: SendInput): Promise<SendResult> {
  const refused = await guard.urlProblem(input.url);
  if (refused) return { response: null, latencyMs: 0, error: refused };
  const url = new URL(input.url);
  if (isIP(url.hostname.replace(/^\[|\]$/g, ''))) return send(input); // no lookup happens: checked above
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const agent = await undiciAgentWithLookup(guard.guardedLookup(port, url.pathname));
  try {
    return await send({ ...input, dispatcher: agent });
  } finally {
    void agent.close().catch(() => undefined);
  }
}
