/** A key just created, shown whole this once (it is not kept anywhere: a reload forgets it). */
export function KeyOnce({ keyText, prefix, onDone }: { keyText: string; prefix: string; onDone: () => void }) {
  return (
    <div className="secret-once" role="status" aria-label="New key">
      <div>
        New key <code>{prefix}</code>: copy it now, it is not shown again.
      </div>
      <div className="row">
        <code data-testid="new-key">{keyText}</code>
        <button type="button" onClick={() => void navigator.clipboard?.writeText(keyText).catch(() => undefined)}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
