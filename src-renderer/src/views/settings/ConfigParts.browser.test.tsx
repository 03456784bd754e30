import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import type { Settings } from '../../store/settings.ts';
import { ConfigSection } from './ConfigParts.tsx';
import '../../styles.css';

const settings = {
  providers: [],
  pool: { min_size: 1, max_size: 2, max_jobs_per_container: 500, idle_seconds: 300, queue_timeout_ms: 30000 },
  limits: { timeout_s: 300, memory_mb: 256, cpus: 1, pids: 64, tool_calls: 1000, intermediates: 1000 },
  runtimes: [
    { id: 'python', enabled: true },
    { id: 'bun', enabled: false },
  ],
  maxGrade: { w: 2, d: 1 },
  telemetry: {
    enabled: false,
    url: 'http://localhost:4318/v1/traces',
    urlFrom: 'the default',
    configEnabled: false,
    envOverrides: [],
    warnings: [],
  },
} as Settings;

describe('ConfigSection', () => {
  // The panel's width in a 1440 px window (the nav and the margins take the rest), and at 1000 px.
  for (const width of [1170, 800, 1300])
    it(`at ${width} px no table runs into the next column (a value touched the next names)`, async () => {
      const screen = await render(
        <div style={{ width }}>
          <ConfigSection settings={settings} workspace="/home/me/ws" />
        </div>,
      );
      await expect.element(screen.getByRole('table', { name: 'pool' })).toBeVisible();
      const cells = [...document.querySelectorAll('.settings-columns > div')];
      expect(cells.length).toBe(4);
      for (const cell of cells) {
        const table = cell.querySelector('table');
        if (!table) continue;
        const c = cell.getBoundingClientRect();
        const t = table.getBoundingClientRect();
        expect(t.right, `${table.getAttribute('aria-label')} table`).toBeLessThanOrEqual(c.right + 0.5);
      }
      expect(screen.getByRole('table', { name: 'pool' }).element().textContent).toContain(
        'queue_timeout_ms30000',
      );
    });
});
