import type { DataOf } from '../api.ts';

export type ParityReport = DataOf<'/__sandbox/parity', 'get'>;
export type Difference = ParityReport['differences'][number];

/** A value or type as a cell: strings as they are, the rest as JSON. */
export const shown = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));

/** A difference's identity in the report (its aggregation key): a row stays selected across a refresh. */
export const differenceKey = (d: Difference): string => `${d.kind} ${d.method} ${d.path} ${d.field}`;

/** The differences, most frequent first (the report's order); a click opens its first example side by side. */
export function DifferencesTable({
  label,
  rows,
  selected,
  onSelect,
}: {
  label: string;
  rows: readonly Difference[];
  selected: Difference | null;
  onSelect: (difference: Difference) => void;
}) {
  const isSelected = (d: Difference) => selected !== null && differenceKey(d) === differenceKey(selected);
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th>Count</th>
          <th>Kind</th>
          <th>Operation</th>
          <th>Field</th>
          <th>Target</th>
          <th>Sandbox</th>
          <th>First request</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr
            key={differenceKey(d)}
            className={`clickable${isSelected(d) ? ' selected' : ''}`}
            onClick={() => onSelect(d)}
            aria-selected={isSelected(d)}
            data-testid="parity-difference"
          >
            <td>{d.count}</td>
            <td>
              <span className={`badge ${d.kind === 'unknown-id' ? 'warn' : 'bad'}`}>{d.kind}</span>
            </td>
            <td className="mono">
              {d.method} {d.path}
            </td>
            <td className="mono">{d.field}</td>
            <td className="mono">{shown(d.target)}</td>
            <td className="mono">{shown(d.sandbox)}</td>
            <td>
              <button type="button" className="link mono" onClick={() => onSelect(d)}>
                {d.requestId}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
