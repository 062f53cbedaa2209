import { api, unwrap } from '../api.ts';
import { useLoad } from '../components/actions.tsx';

/** Every scope a /v1 route requires (GET /__sandbox/scopes), picked with checkboxes; `null` = full access. */
export function ScopePicker({
  value,
  onChange,
  allowFull,
  label,
}: {
  value: string[] | null;
  onChange: (next: string[] | null) => void;
  allowFull: boolean;
  label: string;
}) {
  const scopes = useLoad(() => unwrap(api.GET('/__sandbox/scopes')), []);
  const all = scopes.value?.scopes ?? [];
  return (
    <fieldset className="scopes" aria-label={label}>
      <legend>{label}</legend>
      {allowFull ? (
        <label>
          <input type="checkbox" checked={value === null} onChange={(e) => onChange(e.target.checked ? null : [])} /> full access
        </label>
      ) : null}
      {value !== null
        ? all.map((scope) => (
            <label key={scope} className="mono">
              <input
                type="checkbox"
                checked={value.includes(scope)}
                onChange={(e) => onChange(e.target.checked ? [...value, scope] : value.filter((s) => s !== scope))}
              />{' '}
              {scope}
            </label>
          ))
        : null}
      {scopes.error ? <span className="error">{scopes.error}</span> : null}
    </fieldset>
  );
}
