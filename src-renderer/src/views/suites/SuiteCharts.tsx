/**
 * Charts of a suite run (SVG, no library): pass rate per model, latency and token distributions per
 * model, and the pass rate of this suite's runs over time.
 */
import { formatDateTime } from '../../lib/dates.ts';
import type { SuiteRunFullView, SuiteRunSummaryView } from '../../../../src-main/contract/api.ts';
import { bins, ms, pct, scale } from './derive.ts';

const W = 600;
const ROW = 26;
/** A model label that fits the label column (about 36 characters at the chart's font size); the full name is its tooltip. */
const shortLabel = (s: string) => (s.length > 36 ? `${s.slice(0, 35)}…` : s);
const LABEL = 240;

function PassRate({ run }: { run: SuiteRunFullView }) {
  const x = scale(1, W - LABEL - 50);
  const h = run.matrix.totals.length * ROW + 10;
  return (
    <figure className="chart" data-testid="chart-pass-rate">
      <figcaption>Pass rate per model</figcaption>
      <svg width={W} height={h} role="img" aria-label="pass rate per model">
        {run.matrix.totals.map((t, i) => (
          <g key={t.column} transform={`translate(0, ${i * ROW + 5})`}>
            <text x={0} y={15} className="chart-label">
              <title>{t.column}</title>
              {shortLabel(t.column)}
            </text>
            <rect x={LABEL} y={2} width={x(1)} height={ROW - 8} className="bar-bg" />
            <rect x={LABEL} y={2} width={x(t.passRate)} height={ROW - 8} className="bar-ok" />
            <text x={LABEL + x(1) + 6} y={15} className="chart-label">
              {pct(t.passRate)}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}

/** One histogram row per model over a shared axis. */
function Distribution(props: {
  run: SuiteRunFullView;
  title: string;
  testId: string;
  value: (r: SuiteRunFullView['results'][number]) => number;
  format: (v: number) => string;
}) {
  const { run } = props;
  const all = run.results.map(props.value);
  const max = Math.max(1, ...all);
  const count = 12;
  const width = W - LABEL - 10;
  const bw = width / count;
  const rows = run.matrix.columns.map((c) =>
    bins(run.results.filter((r) => r.column === c.id).map(props.value), count, max),
  );
  const peak = Math.max(1, ...rows.flat());
  const h = rows.length * (ROW + 6) + 24;
  return (
    <figure className="chart" data-testid={props.testId}>
      <figcaption>{props.title}</figcaption>
      <svg width={W} height={h} role="img" aria-label={props.title}>
        {rows.map((counts, i) => (
          <g key={run.matrix.columns[i]?.id} transform={`translate(0, ${i * (ROW + 6)})`}>
            <text x={0} y={ROW - 6} className="chart-label">
              <title>{run.matrix.columns[i]?.id ?? ''}</title>
              {shortLabel(run.matrix.columns[i]?.id ?? '')}
            </text>
            {counts.map((n, j) => (
              <rect
                key={j}
                x={LABEL + j * bw + 1}
                y={ROW - (n / peak) * ROW}
                width={bw - 2}
                height={(n / peak) * ROW}
                className="bar-hist"
              >
                <title>{`${n} run(s) ${props.format((j * max) / count)}–${props.format(((j + 1) * max) / count)}`}</title>
              </rect>
            ))}
          </g>
        ))}
        <text x={LABEL} y={h - 4} className="chart-label small">
          0
        </text>
        <text x={W - 10} y={h - 4} textAnchor="end" className="chart-label small">
          {props.format(max)}
        </text>
      </svg>
    </figure>
  );
}

function Trend({ history, current }: { history: SuiteRunSummaryView[]; current: string }) {
  const runs = [...history]
    .filter((r) => r.done > 0)
    .reverse()
    .slice(-20);
  const width = W - 40;
  const h = 110;
  const x = (i: number) => 30 + (runs.length > 1 ? (i / (runs.length - 1)) * (width - 20) : width / 2);
  const y = (v: number) => 10 + (1 - v) * (h - 30);
  const pts = runs.map((r, i) => `${x(i)},${y(r.passed / r.done)}`).join(' ');
  return (
    <figure className="chart" data-testid="chart-trend">
      <figcaption>Pass rate, run over run ({runs.length} runs)</figcaption>
      <svg width={W} height={h} role="img" aria-label="pass rate run over run">
        <line x1={30} x2={width + 10} y1={y(0)} y2={y(0)} className="axis" />
        <line x1={30} x2={width + 10} y1={y(1)} y2={y(1)} className="axis" />
        <text x={0} y={y(1) + 4} className="chart-label small">
          100%
        </text>
        <text x={0} y={y(0) + 4} className="chart-label small">
          0%
        </text>
        <polyline points={pts} className="trend-line" />
        {runs.map((r, i) => (
          <circle
            key={r.id}
            cx={x(i)}
            cy={y(r.passed / r.done)}
            r={r.id === current ? 5 : 3}
            className={r.id === current ? 'trend-current' : 'trend-point'}
          >
            <title>{`${formatDateTime(r.createdAt)} · ${r.status} · ${r.passed}/${r.done}`}</title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}

export function SuiteCharts({ run, history }: { run: SuiteRunFullView; history: SuiteRunSummaryView[] }) {
  return (
    <div className="suite-charts" data-testid="suite-charts">
      <PassRate run={run} />
      <Distribution
        run={run}
        title="Latency per run"
        testId="chart-latency"
        value={(r) => r.latencyMs}
        format={ms}
      />
      <Distribution
        run={run}
        title="Tokens per run"
        testId="chart-tokens"
        value={(r) => r.promptTokens + r.completionTokens}
        format={(v) => `${Math.round(v)}`}
      />
      <Trend history={history} current={run.id} />
    </div>
  );
}
