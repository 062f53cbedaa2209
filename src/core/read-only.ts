import { apiError, type ApiError } from './errors.ts';

/**
 * A sandbox that serves a bundle (`sandbox open`, src/bundle/open.ts) shows a finished run: what it
 * holds must stay what the run left. So it refuses, with 403 READ_ONLY and the sentence it was
 * given, every `/v1` request (a read too: it would join the run's request log, move rate limits and
 * a key's lastUsedAt) and every control-plane request that could change something. The reads the
 * inspector makes, and the stop of the process that serves, pass.
 */
export function readOnlyRefusal(reason: string): ApiError {
  return apiError(403, 'READ_ONLY', reason);
}

/** A control-plane request a read-only sandbox still answers: a read, or the stop of its process. */
export function changesNothing(method: string, url: string): boolean {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return true;
  return method === 'POST' && /^\/__sandbox\/stop\/?(\?|$)/.test(url);
}
