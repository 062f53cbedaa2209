import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ConfirmButton, ErrorLine, Panel, useAction, useLoad } from '../components/actions.tsx';
import { DifferencesTable, differenceKey, type Difference, type ParityReport } from '../parity/Differences.tsx';
import { NotComparedTable } from '../parity/NotCompared.tsx';
import { SideBySide } from '../parity/SideBySide.tsx';

/** null: the sandbox is not a parity proxy (404 NOT_A_PROXY) */
async function loadReport(): Promise<ParityReport | null> {
  const { data, error, response } = await api.GET('/__sandbox/parity');
  if (response.status === 404) return null;
  if (data === undefined) throw new Error(`${response.status} ${JSON.stringify(error)}`);
  return data.data;
}

/**
 * Parity (docs/inspector.md, "Parity"): where `sandbox proxy` found the sandbox and its target differ, drift most
 * frequent first and the ids the sandbox could not learn apart, then the requests not compared
 * with their reasons; a click shows the first example's two answers side by side. Read on
 * demand (Refresh): the proxy feeds no stream event.
 */
export function ParityView() {
  const report = useLoad(loadReport, []);
  const action = useAction();
  const [selected, setSelected] = useState<Difference | null>(null);
  if (report.value === null) {
    return (
      <section className="parity-view">
        <h1>Parity</h1>
        <p className="muted" data-testid="parity-not-proxy">
          This sandbox is not running as a parity proxy: start it with <code>sandbox proxy --target &lt;url&gt;</code> to compare it with a real API.
        </p>
      </section>
    );
  }
  const differences = report.value?.differences ?? [];
  const drift = differences.filter((d) => d.kind !== 'unknown-id');
  const unknown = differences.filter((d) => d.kind === 'unknown-id');
  const notCompared = report.value?.notCompared ?? [];
  const clear = () =>
    action.run(async () => {
      await unwrap(api.DELETE('/__sandbox/parity'));
      setSelected(null);
      await report.reload();
    });
  return (
    <section className="parity-view">
      <h1>Parity</h1>
      <ErrorLine error={report.error ?? action.error} />
      {report.value ? (
        <p data-testid="parity-summary">
          {report.value.compared} of {report.value.requests} requests compared:{' '}
          {drift.length === 0 ? 'no drift' : `${drift.length} difference${drift.length === 1 ? '' : 's'}`}
          {report.value.omitted ? `, ${report.value.omitted} more not kept` : ''}
        </p>
      ) : null}
      <Panel
        title="Differences"
        id="parity-differences"
        actions={
          <>
            <button type="button" onClick={() => void report.reload()}>
              Refresh
            </button>
            <ConfirmButton label="Clear" confirmLabel="Clear the parity report" onConfirm={clear} disabled={action.busy} />
          </>
        }
      >
        {drift.length > 0 ? (
          <DifferencesTable label="Differences" rows={drift} selected={selected} onSelect={setSelected} />
        ) : (
          <p className="muted">no drift so far</p>
        )}
      </Panel>
      {unknown.length > 0 ? (
        <Panel title="Unknown to the sandbox (data, not drift)" id="parity-unknown">
          <DifferencesTable label="Unknown ids" rows={unknown} selected={selected} onSelect={setSelected} />
        </Panel>
      ) : null}
      {notCompared.length > 0 ? (
        <Panel title="Not compared" id="parity-not-compared">
          <NotComparedTable rows={notCompared} />
        </Panel>
      ) : null}
      {selected ? (
        <SideBySide key={differenceKey(selected)} difference={selected} />
      ) : (
        <p className="muted">Select a difference to see the two answers of its first example side by side.</p>
      )}
    </section>
  );
}
