import { Text } from 'ink';
import { attemptLabel, cell, clockTime, deliveryTone, latency, statusTone, windowStart } from '../format.ts';
import { useTone } from '../hooks/use-tone.ts';
import { attemptCount, deliveryTime } from '../state.ts';
import type { DeliveryView } from '../types.ts';
import { lastStatus, targetUrl } from '../ui.ts';
import { Line } from './Panel.tsx';

export interface DeliveriesTableProps {
  /** the line shown instead of rows when there are none */
  empty: string;
  rows: DeliveryView[];
  selected: number;
  focused: boolean;
  width: number;
  height: number;
}

/** Column widths; latency is dropped below 76 columns so the target keeps some room. */
export function deliveryColumns(width: number) {
  const fixed = { time: 8, event: width >= 100 ? 22 : 16, attempt: 5, status: 9, http: 3, latency: width >= 76 ? 7 : 0, next: 8 };
  const used = fixed.time + fixed.event + fixed.attempt + fixed.status + fixed.http + fixed.latency + fixed.next + (fixed.latency ? 7 : 6);
  return { ...fixed, url: Math.max(6, width - used) };
}

/** Webhook deliveries: event type, target, attempt n of max, status, latency, next retry. */
export function DeliveriesTable({ empty, rows, selected, focused, width, height }: DeliveriesTableProps) {
  const tone = useTone();
  const c = deliveryColumns(width);
  const body = Math.max(0, height - 1);
  const start = windowStart(selected, rows.length, body);
  const header = [
    cell('TIME', c.time),
    cell('EVENT', c.event),
    cell('TARGET', c.url),
    cell('TRY', c.attempt),
    cell('STATUS', c.status),
    cell('RES', c.http),
    ...(c.latency ? [cell('LATENCY', c.latency, 'right')] : []),
    cell('NEXT', c.next),
  ].join(' ');
  return (
    <>
      <Line dim>{header}</Line>
      {rows.length === 0 ? <Line dim>{cell(empty, width)}</Line> : null}
      {rows.slice(start, start + body).map((d, i) => {
        const last = d.attempts[d.attempts.length - 1];
        const http = lastStatus(d);
        return (
          <Line key={d.id} inverse={focused && start + i === selected}>
            {`${cell(clockTime(deliveryTime(d)), c.time)} ${cell(d.eventType, c.event)} ${cell(targetUrl(d) || '(not sent yet)', c.url)} ${cell(attemptLabel(attemptCount(d), d.maxAttempts), c.attempt)} `}
            <Text color={tone(deliveryTone(d.status))}>{cell(d.status, c.status)}</Text>{' '}
            <Text color={tone(http === null ? 'red' : statusTone(http))}>{cell(http === null ? (last ? 'ERR' : '') : String(http), c.http)}</Text>
            {`${c.latency ? ` ${cell(latency(last?.latencyMs), c.latency, 'right')}` : ''} ${cell(d.nextAttemptAt ? clockTime(d.nextAttemptAt) : '-', c.next)}`}
          </Line>
        );
      })}
    </>
  );
}
