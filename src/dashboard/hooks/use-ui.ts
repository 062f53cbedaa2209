import { useCallback, useRef, useState } from 'react';
import { initialUiState, uiReducer, type UiAction, type UiState } from '../ui.ts';

/**
 * The UI state, kept in a ref as well as in React state: key handlers read the
 * ref, so keys typed faster than a render (a pasted filter, Tab then r) each
 * see the state the previous key left, never a stale closure.
 */
export function useUi(): [UiState, (action: UiAction) => void, () => UiState] {
  const ref = useRef<UiState>(initialUiState());
  const [state, setState] = useState<UiState>(ref.current);
  const dispatch = useCallback((action: UiAction) => {
    ref.current = uiReducer(ref.current, action);
    setState(ref.current);
  }, []);
  const get = useCallback(() => ref.current, []);
  return [state, dispatch, get];
}
