/**
 * In a finished suite run: what each skill of the sandbox would have saved, "N tool-call lines in M
 * runs", with the runs whose scripts made its tool calls inline (core/skills/savings.ts).
 */
import type { SuiteRunFullView } from '../../../../src-main/contract/api.ts';
import { useStore } from '../../store/index.ts';

type SkillSaving = NonNullable<SuiteRunFullView['skillSavings']>[number];

/** The suite run's skill savings, opening runs and skills in their views. */
export function SuiteSkillSavings({ run }: { run: SuiteRunFullView }) {
  const navigate = useStore((s) => s.navigate);
  return (
    <SkillSavings
      savings={run.skillSavings}
      onOpenRun={(id) => navigate({ view: 'run', id })}
      onOpenSkill={(name) => navigate({ view: 'skills', id: `${run.spec.sandbox}/${name}` })}
    />
  );
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

export function SkillSavings({
  savings,
  onOpenRun,
  onOpenSkill,
}: {
  savings: SkillSaving[] | undefined;
  onOpenRun: (runId: string) => void;
  onOpenSkill: (name: string) => void;
}) {
  if (!savings?.length) return null;
  return (
    <section className="skill-savings" aria-label="skill savings" data-testid="skill-savings">
      <h4>Skills</h4>
      <ul>
        {savings.map((s) => (
          <li key={s.skill} data-skill={s.skill} data-lines={s.lines} data-runs={s.runs}>
            <button className="link" onClick={() => onOpenSkill(s.skill)}>
              {s.skill}
            </button>
            {s.status !== 'passed' && <span className="badge">{s.status}</span>} would have saved{' '}
            <strong>{plural(s.lines, 'tool-call line')}</strong> in <strong>{plural(s.runs, 'run')}</strong>{' '}
            <span className="muted small">({s.sequence.join(' → ')})</span>
            {s.matches.length > 0 && (
              <ul>
                {s.matches.map((m) => (
                  <li key={m.runId}>
                    <button className="link small" onClick={() => onOpenRun(m.runId)}>
                      {m.caseId} @ {m.column}
                    </button>{' '}
                    <span className="muted small">
                      line{m.lines.length === 1 ? '' : 's'} {m.lines.join(', ')}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
