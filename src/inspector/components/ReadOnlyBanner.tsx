import { useEffect, useState } from 'react';
import { api } from '../api.ts';

/**
 * A sandbox that serves a failure bundle (`sandbox open`, docs/inspector.md "A bundle, offline")
 * says so above every view: what is shown is a finished run, and the buttons that would change it
 * are answered 403 READ_ONLY. Read once from GET /__sandbox/health; a live sandbox shows nothing.
 */
export function ReadOnlyBanner() {
  const [reason, setReason] = useState<string | null>(null);
  useEffect(() => {
    void api.GET('/__sandbox/health').then(({ data }) => setReason(data?.data.readOnly ?? null));
  }, []);
  if (!reason) return null;
  return (
    <p className="read-only" role="note" aria-label="Read-only bundle">
      <strong>Read-only:</strong> {reason}
    </p>
  );
}
