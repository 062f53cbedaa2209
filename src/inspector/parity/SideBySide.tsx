import { api, unwrap, type DataOf } from '../api.ts';
import { ErrorLine, Panel, StatusBadge, useLoad } from '../components/actions.tsx';
import { JsonBlock } from '../components/JsonBlock.tsx';
import type { Difference } from './Differences.tsx';

type Example = DataOf<'/__sandbox/parity/examples/{requestId}', 'get'>;
type Answer = Example['target'];

function AnswerColumn({ side, answer }: { side: string; answer: Answer | null }) {
  return (
    <div data-testid={`parity-${side.toLowerCase()}`}>
      <h3>
        {side} {answer ? <StatusBadge status={answer.status} /> : null}
      </h3>
      {answer ? (
        <>
          <JsonBlock value={answer.headers} label={`${side} headers`} />
          {answer.body === undefined ? <p className="muted">no JSON body</p> : <JsonBlock value={answer.body} label={`${side} body`} />}
        </>
      ) : (
        <p className="muted">no answer: the replay could not be made (an id the sandbox could not learn)</p>
      )}
    </div>
  );
}

/** The two answers of a difference's first example (GET /__sandbox/parity/examples/:requestId), side by side. */
export function SideBySide({ difference }: { difference: Difference }) {
  const example = useLoad(
    () => unwrap(api.GET('/__sandbox/parity/examples/{requestId}', { params: { path: { requestId: difference.requestId } } })),
    [difference.requestId],
  );
  const where = difference.field ? ` at ${difference.field}` : '';
  return (
    <Panel title={`${difference.kind}${where}: ${difference.method} ${difference.path}, request ${difference.requestId}`} id="parity-example">
      <ErrorLine error={example.error} />
      {example.value ? (
        <div className="grid2">
          <AnswerColumn side="Target" answer={example.value.target} />
          <AnswerColumn side="Sandbox" answer={example.value.sandbox} />
        </div>
      ) : null}
    </Panel>
  );
}
