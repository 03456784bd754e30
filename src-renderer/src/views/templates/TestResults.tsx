/**
 * The outcome of testing a template: each example, whether it matched the pattern and succeeded, its
 * result beside the expected value.
 */
import { JsonTree } from '../../components/JsonTree.tsx';
import type { TemplateTest } from '../../store/templates.ts';

export function TestResults({ state }: { state: TemplateTest }) {
  if (state.running) return <p className="muted">Running the examples in the sandbox…</p>;
  if (state.error)
    return (
      <div role="alert" className="error">
        Test failed to run: {state.error}
      </div>
    );
  const r = state.result;
  if (!r) return null;
  return (
    <div className="test-results" data-testid="template-test-results" data-passed={r.passed}>
      <strong className={r.passed ? 'ok' : 'error'}>
        {r.passed
          ? r.examples.length === 1
            ? 'The example passed'
            : `All ${r.examples.length} examples passed`
          : `${r.examples.filter((e) => !e.success).length} of ${r.examples.length} example${
              r.examples.length > 1 ? 's' : ''
            } failed`}
      </strong>
      {r.examples.map((ex, i) => (
        <div key={i} className={`example ${ex.success ? 'pass' : 'fail'}`} data-success={ex.success}>
          <div className="meta-line">
            <span>“{ex.intent}”</span>
            <span className={`badge ${ex.matched ? '' : 'status-failed'}`}>
              {ex.matched ? 'matched' : 'no match'}
            </span>
            <span className={`badge ${ex.success ? 'status-succeeded' : 'status-failed'}`}>
              {ex.success ? 'success' : 'failure'}
            </span>
          </div>
          {ex.error && <div className="error small">{ex.error}</div>}
          <div className="grid">
            <div>
              <span className="muted small">result</span>
              {'data' in ex ? (
                <JsonTree value={ex.data} label={`result of example ${i + 1}`} />
              ) : (
                <p className="muted small">no result</p>
              )}
            </div>
            <div>
              <span className="muted small">expected</span>
              {'expected' in ex ? (
                <JsonTree value={ex.expected} label={`expected of example ${i + 1}`} />
              ) : (
                <p className="muted small">not checked (any successful result passes)</p>
              )}
            </div>
          </div>
        </div>
      ))}
    </div>
  );
}
