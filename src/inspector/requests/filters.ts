import { useState } from 'react';
import type { RequestEntry } from './log.ts';

export type StatusFilter = '' | '2xx' | '3xx' | '4xx' | '5xx' | 'errors';
export interface Filters {
  status: StatusFilter;
  method: string;
  path: string;
  /** '' = every workspace; NONE = requests without a known key */
  workspace: string;
}
export const NONE = '(none)';
export const NO_FILTERS: Filters = { status: '', method: '', path: '', workspace: '' };
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

// kept while the page lives: going to a request's details and back keeps them
let kept: Filters = NO_FILTERS;

export function useFilters(): [Filters, (change: Partial<Filters>) => void] {
  const [filters, setFilters] = useState(kept);
  return [
    filters,
    (change) =>
      setFilters((current) => {
        kept = { ...current, ...change };
        return kept;
      }),
  ];
}

export function isFiltered(filters: Filters): boolean {
  return filters.status !== '' || filters.method !== '' || filters.path !== '' || filters.workspace !== '';
}

export function matcher(filters: Filters): (entry: RequestEntry) => boolean {
  const text = filters.path.trim().toLowerCase();
  const status = filters.status;
  return (entry) => {
    if (status !== '') {
      const s = entry.status;
      if (status === 'errors' ? s < 400 : Math.floor(s / 100) !== Number(status[0])) return false;
    }
    if (filters.method !== '' && entry.method !== filters.method) return false;
    if (filters.workspace !== '' && (entry.workspaceId ?? NONE) !== filters.workspace) return false;
    if (text !== '' && !entry.path.toLowerCase().includes(text)) return false;
    return true;
  };
}
