import { useEffect, useState } from 'react';

/** The local time, refreshed every `tickMs` (the header's uptime ticks); 0 = never refresh. */
export function useNow(tickMs: number, now: () => number = Date.now): number {
  const [value, setValue] = useState(now);
  useEffect(() => {
    if (tickMs <= 0) return;
    const timer = setInterval(() => setValue(now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs, now]);
  return value;
}
