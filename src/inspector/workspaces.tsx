import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, unwrap, type DataOf } from './api.ts';

/** Every workspace (fixture and created) with its keys, as GET /__sandbox/workspaces answers. */
export type Workspace = DataOf<'/__sandbox/workspaces', 'get'>[number];

interface WorkspacesState {
  workspaces: Workspace[];
  /** the workspace the views show; the sandbox's default workspace (`default: true`) until the user picks another */
  selected: Workspace | null;
  select(id: string): void;
  refresh(): Promise<void>;
  error: string | null;
}

const WorkspacesContext = createContext<WorkspacesState | null>(null);
const SELECTED_KEY = 'sandbox-inspector-workspace';

export function WorkspacesProvider({ children }: { children: ReactNode }) {
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [selectedId, setSelectedId] = useState<string | null>(initialSelection);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setWorkspaces(await unwrap(api.GET('/__sandbox/workspaces')));
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const value = useMemo<WorkspacesState>(() => {
    // the sandbox decides its default (src/core/default-workspace.ts): the workspace of the README's key
    const selected = workspaces.find((w) => w.id === selectedId) ?? workspaces.find((w) => w.default) ?? workspaces[0] ?? null;
    return {
      workspaces,
      selected,
      select: (id) => {
        sessionStorage.setItem(SELECTED_KEY, id);
        setSelectedId(id);
      },
      refresh,
      error,
    };
  }, [workspaces, selectedId, refresh, error]);
  return <WorkspacesContext.Provider value={value}>{children}</WorkspacesContext.Provider>;
}

/**
 * A link opened in a new page names its workspace (`?workspace=<id>`, the Data view's links
 * carry it): that wins over the page's last choice. Read once, when the page starts, so the
 * selection is right on the first render of every view that uses it (no view waits for
 * another to adopt it).
 */
function initialSelection(): string | null {
  const fromLink = new URLSearchParams(window.location.search).get('workspace');
  if (fromLink) sessionStorage.setItem(SELECTED_KEY, fromLink);
  return fromLink ?? sessionStorage.getItem(SELECTED_KEY);
}

export function useWorkspaces(): WorkspacesState {
  const state = useContext(WorkspacesContext);
  if (!state) throw new Error('useWorkspaces outside WorkspacesProvider');
  return state;
}
