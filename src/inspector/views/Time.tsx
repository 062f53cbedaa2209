import { useCallback, useEffect, useRef, useState } from 'react';
import { ClockPanel } from '../time/Clock.tsx';
import { FaultsPanel } from '../time/Faults.tsx';
import { RateLimitsPanel } from '../time/RateLimits.tsx';
import { StatePanel } from '../time/State.tsx';
import { openStream } from '../stream.ts';
import { useWorkspaces } from '../workspaces.tsx';

/**
 * Time & state (docs/inspector.md, "Time and state"): the sandbox clock and the workspace's, reset and
 * snapshots, fault rules, rate-limit buckets. A reset or a restore (here or
 * elsewhere: the stream's `reset` event) reads everything again.
 */
export function TimeView() {
  const { selected, refresh } = useWorkspaces();
  const [version, setVersion] = useState(0);
  const bump = useCallback(() => setVersion((v) => v + 1), []);
  // one stream for the view (a browser keeps at most 6 connections to a host)
  const [live, setLive] = useState(0);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    const stop = openStream(['rate-limit', 'reset'], (event) => {
      if (event === 'reset') bump();
      if (event !== 'rate-limit' || pending.current) return;
      pending.current = setTimeout(() => {
        pending.current = null;
        setLive((n) => n + 1);
      }, 500);
    });
    return () => {
      stop();
      if (pending.current) clearTimeout(pending.current);
      pending.current = null;
    };
  }, [bump]);
  return (
    <section className="time-view">
      <h1>Time &amp; state</h1>
      <ClockPanel workspace={selected} version={version} onMoved={() => undefined} />
      <StatePanel
        workspace={selected}
        version={version}
        onChanged={() => {
          bump();
          void refresh();
        }}
      />
      <FaultsPanel workspace={selected} version={version} />
      <RateLimitsPanel version={version} live={live} />
    </section>
  );
}
