import { useEffect, useState } from 'react';

/** The answer of one call, reloaded when `key` changes; a stale answer never replaces a newer one. */
export function useLoad<T>(key: string | null, load: () => Promise<T>): { data: T | null; error: string | null; loading: boolean } {
  const [state, setState] = useState<{ key: string | null; data: T | null; error: string | null }>({ key: null, data: null, error: null });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what `load` loads; a new `load` each render is not a new load
  useEffect(() => {
    if (key === null) return;
    let current = true;
    load().then(
      (data) => current && setState({ key, data, error: null }),
      (error: unknown) => current && setState({ key, data: null, error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      current = false;
    };
  }, [key]);
  const fresh = state.key === key;
  return { data: fresh ? state.data : null, error: fresh ? state.error : null, loading: key !== null && !fresh };
}
