import { ReadOnlyBanner } from './components/ReadOnlyBanner.tsx';
import { pickerLabel } from './workspace-label.ts';
import { Link, Redirect, Route, Router, Switch } from 'wouter';
import { DataPage } from './views/Data.tsx';
import { KeysView } from './views/Keys.tsx';
import { ParityView } from './views/Parity.tsx';
import { RequestsView } from './views/Requests.tsx';
import { TimeView } from './views/Time.tsx';
import { WebhooksView } from './views/Webhooks.tsx';
import { useWorkspaces, WorkspacesProvider } from './workspaces.tsx';

/** The inspector is served at /__sandbox/ui/; every view has a path of its own under it (deep links). */
export const BASE = '/__sandbox/ui';

const VIEWS = [
  { path: '/requests', label: 'Requests' },
  { path: '/data', label: 'Data' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/time', label: 'Time & state' },
  { path: '/keys', label: 'Keys' },
  { path: '/parity', label: 'Parity' },
] as const;

export function App() {
  return (
    <Router base={BASE}>
      <WorkspacesProvider>
        <div className="app">
          <header className="top">
            <span className="brand">Sandbox inspector</span>
            <nav>
              {VIEWS.map((view) => (
                <Link
                  key={view.path}
                  href={view.path}
                  className={(active) => (active ? 'tab active' : 'tab')}
                  data-testid={`nav${view.path.replace('/', '-')}`}
                >
                  {view.label}
                </Link>
              ))}
            </nav>
            <WorkspacePicker />
          </header>
          <ReadOnlyBanner />
          <main className="view">
            <Switch>
              <Route path="/requests" nest>
                <RequestsView />
              </Route>
              <Route path="/data" nest>
                <DataPage />
              </Route>
              <Route path="/webhooks" nest>
                <WebhooksView />
              </Route>
              <Route path="/time" nest>
                <TimeView />
              </Route>
              <Route path="/keys" nest>
                <KeysView />
              </Route>
              <Route path="/parity" nest>
                <ParityView />
              </Route>
              <Route>
                <Redirect to="/requests" replace />
              </Route>
            </Switch>
          </main>
        </div>
      </WorkspacesProvider>
    </Router>
  );
}

function WorkspacePicker() {
  const { workspaces, selected, select, error } = useWorkspaces();
  if (error)
    return (
      <span className="error" role="alert">
        {error}
      </span>
    );
  return (
    <label className="picker">
      Workspace{' '}
      <select aria-label="Workspace" value={selected?.id ?? ''} onChange={(event) => select(event.target.value)}>
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {pickerLabel(w)}
          </option>
        ))}
      </select>
    </label>
  );
}
