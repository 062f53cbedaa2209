import { Fragment, type ReactNode } from 'react';
import { Link } from 'wouter';
import './json.css';

/**
 * A JSON value as indented, coloured text (a `<pre class="json">`), shared by the views.
 * `linkFor(path, value)` may turn a string value into a link (the Data view's related
 * records): `path` is the dotted path of the value in the document (`passengers.0.personId`),
 * as the control plane's data routes name fields. `label` names the block for screen readers.
 */
export interface JsonViewProps {
  value: unknown;
  label?: string;
  linkFor?: (path: string, value: string) => string | null;
}

export function JsonView({ value, label, linkFor }: JsonViewProps) {
  return (
    <pre className="json json-view" aria-label={label}>
      {render(value, '', 0, linkFor)}
    </pre>
  );
}

/** The text of a body as the JSON view when it is JSON, as plain text when not. */
export function BodyView({ body, label }: { body: string; label?: string }) {
  try {
    return <JsonView value={JSON.parse(body)} label={label} />;
  } catch {
    return (
      <pre className="json" aria-label={label}>
        {body}
      </pre>
    );
  }
}

const INDENT = '  ';

function render(value: unknown, path: string, depth: number, linkFor: JsonViewProps['linkFor']): ReactNode {
  if (value === null) return <span className="j-null">null</span>;
  if (typeof value === 'string') {
    const text = JSON.stringify(value);
    const href = linkFor?.(path, value);
    return href ? (
      <Link href={href} className="j-link">
        {text}
      </Link>
    ) : (
      <span className="j-str">{text}</span>
    );
  }
  if (typeof value === 'number') return <span className="j-num">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="j-bool">{String(value)}</span>;
  const pad = INDENT.repeat(depth + 1);
  const close = INDENT.repeat(depth);
  const child = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return (
      <>
        {'[\n'}
        {value.map((item, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: an array's items are its positions
          <Fragment key={i}>
            {pad}
            {render(item, child(String(i)), depth + 1, linkFor)}
            {i < value.length - 1 ? ',\n' : '\n'}
          </Fragment>
        ))}
        {close}]
      </>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return (
      <>
        {'{\n'}
        {entries.map(([key, item], i) => (
          <Fragment key={key}>
            {pad}
            <span className="j-key">{JSON.stringify(key)}</span>
            {': '}
            {render(item, child(key), depth + 1, linkFor)}
            {i < entries.length - 1 ? ',\n' : '\n'}
          </Fragment>
        ))}
        {close}
        {'}'}
      </>
    );
  }
  return String(value);
}
