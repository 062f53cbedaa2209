import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { Link } from 'wouter';
import { BodyView } from '../components/JsonView.tsx';
import { useWorkspaces } from '../workspaces.tsx';
import { curlCommand } from './curl.ts';
import { formatLatency, statusClass } from './format.ts';
import { requestLog, useRequestLog, LOG_CAPACITY, type RequestEntry } from './log.ts';

/**
 * The live log carries no headers or bodies (the stream is read with detail=none): a request's
 * are read from the sandbox when its page opens, while the sandbox still keeps them (its newest 200).
 */
function useWithDetail(entry: RequestEntry | undefined): RequestEntry | undefined {
  const [full, setFull] = useState<RequestEntry | null>(null);
  const requestId = entry?.requestId;
  const needed = entry !== undefined && entry.detail === undefined;
  useEffect(() => {
    setFull(null);
    if (!needed || requestId === undefined) return;
    let current = true;
    void api.GET('/__sandbox/requests/{requestId}', { params: { path: { requestId } } }).then(
      ({ data }) => {
        if (current && data) setFull(data.data as RequestEntry);
      },
      () => undefined, // the page shows the entry without its headers and bodies
    );
    return () => {
      current = false;
    };
  }, [requestId, needed]);
  return full && full.requestId === requestId ? full : entry;
}

/** One request of the log, at /requests/:requestId (a link to it can be shared while the page keeps it). */
export function RequestDetail({ requestId }: { requestId: string }) {
  const log = useRequestLog();
  const entry = useWithDetail(requestLog.get(requestId));
  return (
    <section className="req-detail" aria-label="Request details">
      <p>
        <Link href="/">← All requests</Link>
      </p>
      {entry ? (
        <Details entry={entry} />
      ) : log.loaded ? (
        <p role="alert" className="error">
          Request {requestId} is not in the log: the page keeps the last {LOG_CAPACITY.toLocaleString('en')} requests it saw, the sandbox its last 1,000.
        </p>
      ) : (
        <p className="muted">Reading the request log…</p>
      )}
    </section>
  );
}

function Details({ entry }: { entry: RequestEntry }) {
  const { workspaces } = useWorkspaces();
  const workspace = workspaces.find((w) => w.id === entry.workspaceId);
  const wholeKey = entry.keyPrefix ? (workspaces.flatMap((w) => w.keys).find((k) => k.keyPrefix === entry.keyPrefix && k.key)?.key ?? null) : null;
  return (
    <>
      <h1 className="req-title mono">
        <span>{entry.method}</span> <span className="req-path-full">{entry.path}</span>{' '}
        <span className={statusClass(entry.status)} aria-label="Status">
          {entry.status}
        </span>
      </h1>
      <dl className="facts">
        <dt>Request id</dt>
        <dd className="mono">{entry.requestId}</dd>
        <dt>At (UTC)</dt>
        <dd className="mono">{entry.at}</dd>
        <dt>Latency</dt>
        <dd className="mono">{formatLatency(entry.latencyMs)}</dd>
        <dt>Workspace</dt>
        <dd>{workspace ? `${workspace.name} (${workspace.id})` : (entry.workspaceId ?? '— (no known key)')}</dd>
        <dt>Key</dt>
        <dd className="mono">{entry.keyPrefix ? `${entry.keyPrefix}…` : '—'}</dd>
      </dl>
      {entry.reason ? (
        <div className="callout bad" data-testid="refusal-reason">
          <strong>Refused:</strong> <span className="mono">{entry.reason}</span>
        </div>
      ) : null}
      {entry.warnings && entry.warnings.length > 0 ? (
        <div className="callout warn" data-testid="warnings">
          <strong>Accepted with warnings:</strong>
          <ul>
            {entry.warnings.map((w) => (
              <li key={w.code}>
                <span className="mono">{w.code}</span> {w.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <Curl entry={entry} wholeKey={wholeKey} />
      {entry.detail ? (
        <div className="req-parts">
          <Part title="Request" headers={entry.detail.request.headers} body={entry.detail.request.body} truncated={entry.detail.request.truncated} />
          <Part title="Response" headers={entry.detail.response.headers} body={entry.detail.response.body} truncated={entry.detail.response.truncated} />
        </div>
      ) : (
        <p className="muted">
          Headers and bodies were not captured for this request: the sandbox captures them only while a stream client (such as this page) is connected, and
          keeps them for its last 200 requests.
        </p>
      )}
    </>
  );
}

function Part({ title, headers, body, truncated }: { title: string; headers: Record<string, string>; body: string | null; truncated: boolean }) {
  return (
    <section className="req-part" aria-label={`${title}`}>
      <h2>{title}</h2>
      <h3>Headers</h3>
      <table className="headers" aria-label={`${title} headers`}>
        <tbody>
          {Object.entries(headers).map(([name, value]) => (
            <tr key={name}>
              <th className="mono">{name}</th>
              <td className="mono">{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Body{truncated ? <span className="muted"> (the first 4 KB)</span> : null}</h3>
      {body === null || body === '' ? <p className="muted">(none)</p> : <BodyView body={body} label={`${title} body`} />}
    </section>
  );
}

function Curl({ entry, wholeKey }: { entry: RequestEntry; wholeKey: string | null }) {
  const [showKey, setShowKey] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);
  const command = curlCommand(entry, window.location.origin, showKey ? wholeKey : null);
  const copy = () => {
    navigator.clipboard.writeText(command).then(
      () => setCopied('Copied.'),
      () => setCopied('The browser refused the clipboard: select the command and copy it.'),
    );
  };
  return (
    <section className="curl" aria-label="Copy as curl">
      <div className="curl-bar">
        <h2>curl</h2>
        <button type="button" className="primary" onClick={copy}>
          Copy as curl
        </button>
        {entry.keyPrefix ? (
          <label
            title={
              wholeKey
                ? 'Write the whole key into the command'
                : 'Only the key prefix is logged; the page knows the whole key only for keys listed whole by the sandbox'
            }
          >
            <input type="checkbox" checked={showKey} disabled={!wholeKey} onChange={(event) => setShowKey(event.target.checked)} /> Show key
          </label>
        ) : null}
        {copied ? (
          <span className="muted" role="status">
            {copied}
          </span>
        ) : null}
      </div>
      <pre className="json mono" aria-label="curl command">
        {command}
      </pre>
      {!showKey && entry.keyPrefix ? (
        <p className="muted">
          The key is masked as <code>$SANDBOX_KEY</code> (it starts with <code>{entry.keyPrefix}</code>).
          {wholeKey ? null : ' The sandbox logs only key prefixes and does not list this key whole, so the page cannot fill it in.'}
        </p>
      ) : null}
      {entry.detail?.request.truncated ? <p className="muted">The body was logged cut at 4 KB: the command sends the cut body.</p> : null}
    </section>
  );
}
