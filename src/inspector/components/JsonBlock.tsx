/** A JSON document pretty-printed (or the text as it is when it is not JSON), in a `pre.json`. */
export function JsonBlock({ text, value, label }: { text?: string | null; value?: unknown; label?: string }) {
  let shown: string;
  if (value !== undefined) shown = JSON.stringify(value, null, 2);
  else if (text === null || text === undefined || text === '') shown = '(empty)';
  else {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      shown = text;
    }
  }
  return (
    <pre className="json" aria-label={label}>
      {shown}
    </pre>
  );
}
