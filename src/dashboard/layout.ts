/**
 * Where each panel goes for a terminal of a given size. One row is left
 * unused at the bottom so Ink never scrolls the terminal; below 140 columns the
 * panels stack (requests, deliveries, then rate limits beside events); from
 * 140 columns the requests take a tall left column.
 */
export interface Rect {
  width: number;
  height: number;
}

export interface Layout {
  columns: number;
  body: Rect;
  wide: boolean;
  requests: Rect;
  deliveries: Rect;
  rateLimits: Rect;
  events: Rect;
  tooSmall: boolean;
}

export const MIN_SIZE = { columns: 50, rows: 12 } as const;
export const WIDE_FROM = 140;

export function computeLayout(columns: number, rows: number): Layout {
  const usable = Math.max(1, rows - 1);
  const body = { width: columns, height: Math.max(0, usable - 2) };
  const tooSmall = columns < MIN_SIZE.columns || rows < MIN_SIZE.rows;
  if (columns >= WIDE_FROM) {
    // the right column needs about 90 columns; the requests table takes everything else
    const left = Math.max(Math.floor(columns / 2), columns - 91);
    const right = columns - left - 1;
    const deliveries = Math.round(body.height * 0.4);
    const rate = Math.round(body.height * 0.3);
    return {
      columns,
      body,
      wide: true,
      tooSmall,
      requests: { width: left, height: body.height },
      deliveries: { width: right, height: deliveries },
      rateLimits: { width: right, height: rate },
      events: { width: right, height: body.height - deliveries - rate },
    };
  }
  const requests = Math.max(4, Math.round(body.height * 0.4));
  const deliveries = Math.max(3, Math.round(body.height * 0.27));
  const bottom = Math.max(2, body.height - requests - deliveries);
  const half = Math.floor(columns / 2);
  return {
    columns,
    body,
    wide: false,
    tooSmall,
    requests: { width: columns, height: requests },
    deliveries: { width: columns, height: deliveries },
    rateLimits: { width: half, height: bottom },
    events: { width: columns - half - 1, height: bottom },
  };
}
