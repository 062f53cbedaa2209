import { useEffect } from 'react';
import { useLocation, useSearchParams } from 'wouter';
import { useWorkspaces } from '../workspaces.tsx';

/**
 * The workspace the Data view shows: the picker's selection. Records belong to one
 * workspace, so every link of the view carries it (`?workspace=<id>`); a link opened in a
 * new page selects that workspace as the page starts (see `initialSelection`). Choosing
 * another workspace in the picker afterwards wins: the view goes to the same collection's
 * first page in that workspace (a record or a search of one workspace means nothing in
 * another), and asks nothing of the sandbox until the address says the new workspace.
 */
export function useDataWorkspace(): { workspaceId: string | null; withWorkspace: (href: string) => string } {
  const { selected } = useWorkspaces();
  const [params] = useSearchParams();
  const [location, navigate] = useLocation();
  const fromUrl = params.get('workspace');

  const moved = selected !== null && fromUrl !== null && fromUrl !== selected.id;
  useEffect(() => {
    if (!moved || !selected) return;
    const collection = location.split('/').filter(Boolean)[0];
    navigate(`${collection ? `/${collection}` : '/'}?workspace=${encodeURIComponent(selected.id)}`, { replace: true });
  }, [moved, selected, location, navigate]);

  const workspaceId = !moved ? (selected?.id ?? null) : null;
  return {
    workspaceId,
    withWorkspace: (href) => {
      if (!workspaceId) return href;
      return `${href}${href.includes('?') ? '&' : '?'}workspace=${encodeURIComponent(workspaceId)}`;
    },
  };
}
