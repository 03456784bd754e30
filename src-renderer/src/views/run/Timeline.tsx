/**
 * The run's timeline: its attempts or steps with their outcome; selecting one opens it.
 */
import { memo } from 'react';
import type { RunRecordView as RunRecord } from '../../../../src-main/contract/api.ts';
import { formatMs } from '../../components/Badges.tsx';
import { attemptOutcome, OUTCOME_LABEL } from './attempts.ts';

export const Timeline = memo(function Timeline({
  run,
  selected,
  onSelect,
}: {
  run: RunRecord;
  selected: number | undefined;
  onSelect: (n: number) => void;
}) {
  const unit = run.started.mode === 'interactive' ? 'Step' : 'Attempt';
  return (
    <ol className="timeline" aria-label={run.started.mode === 'interactive' ? 'steps' : 'attempts'}>
      {run.attempts.map((a) => {
        const o = attemptOutcome(a, run);
        return (
          <li key={a.n}>
            <button
              className={`tl-item outcome-${o} ${a.n === selected ? 'active' : ''}`}
              aria-current={a.n === selected ? 'step' : undefined}
              data-attempt={a.n}
              onClick={() => onSelect(a.n)}
            >
              <span className="tl-title">
                {unit} {a.n}
                {a.step?.final ? ' · final' : ''}
                {a.step?.stagnant ? ' · stagnant' : ''}
              </span>
              {/* A failed step that repeated an earlier one (its script and its failure): which one, in
                  words a screen reader reads with the step's name (it was in the CLI's line only). */}
              {a.step?.repeats !== undefined && (
                <span className="badge status-interrupted small" data-testid="step-repeats">
                  repeats step {a.step.repeats}
                </span>
              )}
              <span className={`tl-outcome outcome-${o}`}>{OUTCOME_LABEL[o]}</span>
              <span className="muted small">
                {a.tier ?? ''}
                {a.tokens.prompt + a.tokens.completion > 0
                  ? ` · ${a.tokens.prompt + a.tokens.completion} tok`
                  : ''}
                {a.execution ? ` · ${formatMs(a.execution.durationMs)}` : ''}
              </span>
              {a.step?.summary && <span className="small ellipsis">{a.step.summary}</span>}
            </button>
          </li>
        );
      })}
      {run.attempts.length === 0 && <li className="muted">No {unit.toLowerCase()} yet.</li>}
    </ol>
  );
});
