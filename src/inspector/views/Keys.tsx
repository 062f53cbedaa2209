import { OrgKeysPanel } from '../keys/OrgKeys.tsx';
import { WorkspaceKeysPanel } from '../keys/WorkspaceKeys.tsx';
import { useWorkspaces } from '../workspaces.tsx';

/** Keys (docs/inspector.md, "Keys"): the selected workspace's keys and the organization keys it issued; a new key is shown whole once. */
export function KeysView() {
  const { selected } = useWorkspaces();
  return (
    <section className="keys-view">
      <h1>Keys</h1>
      <WorkspaceKeysPanel workspace={selected} />
      <OrgKeysPanel workspace={selected} />
    </section>
  );
}
