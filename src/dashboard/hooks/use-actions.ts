import type { DashboardAction } from '../state.ts';
import type { DashboardSource } from '../types.ts';
import { rowIds, selectedIndex, type UiAction, type UiState, type VisibleRows } from '../ui.ts';
import type { KeyActions } from './use-keys.ts';

export interface ActionDeps {
  source: DashboardSource;
  dispatch: (action: DashboardAction) => void;
  dispatchUi: (action: UiAction) => void;
  getUi: () => UiState;
  getRows: () => VisibleRows;
  exit: () => void;
  onQuit?: (() => void) | undefined;
}

/** What the acting keys do: quit, pause, clear, and replay the selected delivery through the control plane. */
export function useActions({ source, dispatch, dispatchUi, getUi, getRows, exit, onQuit }: ActionDeps): KeyActions {
  return {
    quit() {
      exit();
      onQuit?.();
    },
    togglePause() {
      dispatch({ type: 'toggle-pause' });
    },
    clear() {
      dispatch({ type: 'clear' });
      dispatchUi({ type: 'clear' });
      dispatchUi({ type: 'message', text: 'view cleared' });
    },
    replay() {
      const ui = getUi();
      const rows = getRows();
      const delivery = ui.panel === 'deliveries' ? rows.deliveries[selectedIndex(rowIds(rows, 'deliveries'), ui.selected.deliveries)] : undefined;
      if (!delivery) {
        dispatchUi({ type: 'message', text: 'select a delivery in Webhooks (Tab) to replay it' });
        return;
      }
      dispatchUi({ type: 'message', text: `replaying ${delivery.id}…` });
      source.replay(delivery.id).then(
        (updated) => {
          dispatch({ type: 'deliveries', list: [updated] });
          const status = updated.attempts[updated.attempts.length - 1]?.response?.status;
          dispatchUi({ type: 'message', text: `replayed ${delivery.id}: ${status ?? 'no response'}` });
        },
        (err: unknown) => dispatchUi({ type: 'message', text: `replay failed: ${err instanceof Error ? err.message : String(err)}` }),
      );
    },
  };
}
