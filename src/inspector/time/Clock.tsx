import { useEffect, useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorLine, Panel, useAction, useLoad } from '../components/actions.tsx';
import type { Workspace } from '../workspaces.tsx';
import { formatDuration, parseDuration } from './duration.ts';

const STEPS = [
  { label: '+1 min', name: '1 minute', ms: 60_000 },
  { label: '+1 h', name: '1 hour', ms: 3_600_000 },
  { label: '+1 day', name: '1 day', ms: 86_400_000 },
] as const;

/** A real clock moves between two reads: show it ticking from the last answer (nothing is polled). */
function useTicking(nowMs: number | undefined, mode: string | undefined): string | undefined {
  const [, setTick] = useState(0);
  const [readAt, setReadAt] = useState(() => Date.now());
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new reading of the clock restarts the local count from now
  useEffect(() => setReadAt(Date.now()), [nowMs]);
  useEffect(() => {
    if (mode !== 'real') return undefined;
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [mode]);
  if (nowMs === undefined) return undefined;
  const shown = mode === 'real' ? nowMs + (Date.now() - readAt) : nowMs;
  return new Date(shown).toISOString();
}

/** The global clock and the selected workspace's clock: read, advance, set (GET/POST /__sandbox/clock...). */
export function ClockPanel({ workspace, version, onMoved }: { workspace: Workspace | null; version: number; onMoved: () => void }) {
  const clock = useLoad(() => unwrap(api.GET('/__sandbox/clock')), [version]);
  const wsClock = useLoad(
    async () => (workspace ? unwrap(api.GET('/__sandbox/workspaces/{id}/clock', { params: { path: { id: workspace.id } } })) : null),
    [workspace?.id, version],
  );
  const action = useAction();
  const [custom, setCustom] = useState('');
  const [setTo, setSetTo] = useState('');
  const [wsCustom, setWsCustom] = useState('');
  const now = useTicking(clock.value?.nowMs, clock.value?.mode);
  const wsNow = useTicking(wsClock.value?.nowMs ?? undefined, wsClock.value?.mode);

  const after = async () => {
    await Promise.all([clock.reload(), wsClock.reload()]);
    onMoved();
  };
  const advance = (ms: number) =>
    action.run(async () => {
      await unwrap(api.POST('/__sandbox/clock/advance', { body: { ms } }));
      await after();
    });
  const advanceWorkspace = (ms: number) =>
    action.run(async () => {
      if (!workspace) return;
      await unwrap(api.POST('/__sandbox/workspaces/{id}/clock/advance', { params: { path: { id: workspace.id } }, body: { ms } }));
      await after();
    });

  const mode = clock.value?.mode;
  return (
    <Panel title="Clock" id="clock">
      <ErrorLine error={clock.error ?? wsClock.error} />
      <div className="grid2">
        <div>
          <h3>Sandbox clock (every workspace)</h3>
          <div className="big-time" data-testid="clock-now" aria-label="Sandbox time">
            {now ?? '…'}
          </div>
          <p className="muted">
            {mode === 'manual'
              ? 'manual clock: time moves only when advanced or set here (or through the control plane); it may be set backwards'
              : mode === 'real'
                ? 'real clock: it follows the wall clock; advancing adds a time-travel offset, and it never goes backwards'
                : ''}
            {clock.value ? ` · mode ${clock.value.mode} · ${clock.value.pendingTimers} timer${clock.value.pendingTimers === 1 ? '' : 's'} pending` : ''}
          </p>
          <div className="row" role="group" aria-label="Advance the sandbox clock">
            {STEPS.map((step) => (
              <button key={step.ms} type="button" disabled={action.busy} aria-label={`Advance clock ${step.name}`} onClick={() => void advance(step.ms)}>
                {step.label}
              </button>
            ))}
            <form
              className="row"
              onSubmit={(event) => {
                event.preventDefault();
                void action.run(async () => {
                  await unwrap(api.POST('/__sandbox/clock/advance', { body: { ms: parseDuration(custom) } }));
                  setCustom('');
                  await after();
                });
              }}
            >
              <input aria-label="Advance by" placeholder="90s, 2h, 1d12h" size={10} value={custom} onChange={(e) => setCustom(e.target.value)} />
              <button type="submit" disabled={action.busy || custom.trim() === ''}>
                Advance
              </button>
            </form>
          </div>
          <form
            className="row"
            onSubmit={(event) => {
              event.preventDefault();
              void action.run(async () => {
                const at = setTo.trim();
                if (Number.isNaN(Date.parse(at))) throw new Error(`"${at}" is not an ISO 8601 time (e.g. 2026-12-24T09:00:00Z)`);
                await unwrap(api.POST('/__sandbox/clock/set', { body: { at } }));
                setSetTo('');
                await after();
              });
            }}
          >
            <input aria-label="Set clock to" placeholder="2026-12-24T09:00:00Z" size={26} value={setTo} onChange={(e) => setSetTo(e.target.value)} />
            <button type="submit" disabled={action.busy || setTo.trim() === ''}>
              Set to
            </button>
          </form>
        </div>
        <div>
          <h3>Workspace clock{workspace ? ` (${workspace.name})` : ''}</h3>
          <div className="big-time" data-testid="workspace-clock-now" aria-label="Workspace time">
            {wsNow ?? '…'}
          </div>
          <p className="muted">
            {wsClock.value
              ? `the sandbox time plus an offset of ${formatDuration(wsClock.value.offsetMs)} · ${wsClock.value.pendingTimers} timer${wsClock.value.pendingTimers === 1 ? '' : 's'} pending`
              : ''}
          </p>
          <div className="row" role="group" aria-label="Advance the workspace clock">
            {STEPS.map((step) => (
              <button
                key={step.ms}
                type="button"
                disabled={action.busy || !workspace}
                aria-label={`Advance workspace clock ${step.name}`}
                onClick={() => void advanceWorkspace(step.ms)}
              >
                {step.label}
              </button>
            ))}
            <form
              className="row"
              onSubmit={(event) => {
                event.preventDefault();
                void action.run(async () => {
                  const ms = parseDuration(wsCustom);
                  setWsCustom('');
                  await advanceWorkspace(ms);
                });
              }}
            >
              <input aria-label="Advance workspace by" placeholder="90s, 2h, 1d" size={10} value={wsCustom} onChange={(e) => setWsCustom(e.target.value)} />
              <button type="submit" disabled={action.busy || wsCustom.trim() === '' || !workspace}>
                Advance workspace
              </button>
            </form>
          </div>
        </div>
      </div>
      <ErrorLine error={action.error} />
    </Panel>
  );
}
