import { useInput, type Key } from 'ink';
import { rowIds, type UiAction, type UiState, type VisibleRows } from '../ui.ts';

export interface KeyActions {
  quit(): void;
  togglePause(): void;
  clear(): void;
  replay(): void;
}

const PAGE = 10;

/**
 * The keys (docs/dashboard.md): Tab panels, arrows or j/k move, Enter details,
 * / filter, p pause, r replay, c clear, ? help, K keys, q quit. While the filter is
 * being typed, keys go to the filter; Enter applies it, Esc cancels.
 * `getUi`/`getRows` return the latest state, never a closure's stale copy.
 */
export function useKeys(getUi: () => UiState, dispatchUi: (action: UiAction) => void, getRows: () => VisibleRows, actions: KeyActions): void {
  /** `key` names only the keys held: a character split from a longer write holds none */
  const handle = (input: string, key: Partial<Key>) => {
    const ui = getUi();
    if (ui.draft !== null) {
      if (key.return) dispatchUi({ type: 'apply-filter' });
      else if (key.escape) dispatchUi({ type: 'close' });
      else if (key.backspace || key.delete) dispatchUi({ type: 'draft', text: ui.draft.slice(0, -1) });
      else if (input && !key.ctrl && !key.meta && !key.tab) dispatchUi({ type: 'draft', text: ui.draft + input });
      return;
    }
    const move = (delta: number) => dispatchUi({ type: 'move', delta, ids: rowIds(getRows(), ui.panel) });
    if (input === 'q' || (key.ctrl && input === 'c')) actions.quit();
    else if (key.tab) dispatchUi({ type: 'next-panel', delta: key.shift ? -1 : 1 });
    else if (key.downArrow || input === 'j') move(1);
    else if (key.upArrow || input === 'k') move(-1);
    else if (key.pageDown) move(PAGE);
    else if (key.pageUp) move(-PAGE);
    else if (key.return) dispatchUi({ type: 'toggle-details' });
    else if (key.escape) dispatchUi({ type: 'close' });
    else if (input === '/') dispatchUi({ type: 'edit-filter' });
    else if (input === 'p') actions.togglePause();
    else if (input === 'r') actions.replay();
    else if (input === 'c') actions.clear();
    else if (input === '?') dispatchUi({ type: 'toggle-help' });
    else if (input === 'K') dispatchUi({ type: 'toggle-keys' });
  };
  useInput((input, key) => {
    // a paste, or `tmux send-keys "5xx" Enter`, arrives as one write ("5xx\r"): each character
    // is a key of its own and each line break an Enter, so the filter is typed and applied
    if (input.length > 1 && /[\r\n]/.test(input) && !key.ctrl && !key.meta) {
      for (const ch of input.replace(/\r\n/g, '\r')) handle(ch === '\n' ? '\r' : ch, ch === '\r' || ch === '\n' ? { return: true } : {});
      return;
    }
    handle(input, key);
  });
}
