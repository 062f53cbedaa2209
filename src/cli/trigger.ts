import { isCatalogueEvent, unknownEventType } from '../webhooks/catalogue.ts';
import { dim, printJson } from './output.ts';
import { controlClient, type ControlFlags } from './control.ts';
import { webhookWorkspace } from './webhook-workspace.ts';

export interface TriggerFlags extends ControlFlags {
  data?: string;
  json?: boolean;
  /** `key=value`, repeatable: replace a field of the data (dotted path) */
  override?: string[];
  /** `key=value`, repeatable: add a field to the data (dotted path) */
  add?: string[];
}

/** `sandbox trigger <event-type>`: emits one catalogue event through the control plane. */
export async function runTrigger(type: string, flags: TriggerFlags): Promise<void> {
  // checked here too, so the line names the argument, not the control plane's body.type
  if (!isCatalogueEvent(type)) throw new Error(unknownEventType(type));
  const data = parseData(flags.data);
  const override = parseAssignments('--override', flags.override);
  const add = parseAssignments('--add', flags.add);
  const client = await controlClient(flags);
  const workspace = await webhookWorkspace(client, flags.workspace);
  const { event, deliveryIds } = await client.emitEvent({
    workspaceId: workspace.id,
    type,
    ...(data ? { data } : {}),
    ...(override ? { override } : {}),
    ...(add ? { add } : {}),
  });
  if (flags.json) return printJson({ event, deliveryIds });
  const count = deliveryIds.length;
  process.stdout.write(`Emitted ${event.type} ${dim(event.id)} in ${workspace.name}: ${count} ${count === 1 ? 'delivery' : 'deliveries'} queued\n`);
}

function parseData(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new Error(`--data is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('--data must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * `--override a.b=value` (repeatable) as {"a.b": value}: the value is JSON when
 * it parses as JSON (`3`, `true`, `null`, `{"x":1}`), otherwise the plain string.
 */
export function parseAssignments(flag: string, raw: string[] | undefined): Record<string, unknown> | undefined {
  if (!raw?.length) return undefined;
  const out: Record<string, unknown> = {};
  for (const item of raw) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`${flag} takes key=value (a dotted path such as customer.email=ada@example.com), not "${item}"`);
    const text = item.slice(eq + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // a plain string
    }
    out[item.slice(0, eq)] = value;
  }
  return out;
}
