import { useCallback, useEffect, useState } from 'react';
import { ClockPanel } from '../time/Clock.tsx';
import { FaultsPanel } from '../time/Faults.tsx';
import { RateLimitsPanel } from '../time/RateLimits.tsx';
import { StatePanel } from '../time/State.tsx';
import { openStream } from '../stream.ts';
import { useWorkspaces } from '../workspaces.tsx';

/**
 * Time & state (issue 25): the sandbox clock and the workspace's, reset and
 * snapshots, fault rules, rate-limit buckets. A reset or a restore (here or
 * elsewhere: the stream's `reset` event) reads everything again.
 */
export function TimeView() {
  const { selected, refresh } = useWorkspaces();
  const [version, setVersion] = useState(0);
  const bump = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(
    () =>
      openStream((event) => {
        if (event === 'reset') bump();
      }),
    [bump],
  );
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
      <RateLimitsPanel version={version} />
    </section>
  );
}
