/**
 * The main window's size and position, kept in the user-data folder between starts. Pure parsing (zod)
 * so a test can check it without Electron: a state from another screen layout is put back on a
 * visible display, a corrupt file is ignored.
 */
import { z } from 'zod';

export const windowStateSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400).max(20_000),
  height: z.number().int().min(300).max(20_000),
  maximized: z.boolean().default(false),
});

export type WindowState = z.infer<typeof windowStateSchema>;

export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_WINDOW: WindowState = { width: 1400, height: 900, maximized: false };

/**
 * The state to open with: the saved one when it parses, shrunk to fit, and without a position unless
 * its title bar lands on one of `displays` (work areas); else the default size.
 */
export function restoreWindowState(raw: unknown, displays: Area[]): WindowState {
  const r = windowStateSchema.safeParse(raw);
  if (!r.success) return DEFAULT_WINDOW;
  const s = r.data;
  const largest = displays.reduce<Area | undefined>(
    (a, d) => (!a || d.width * d.height > a.width * a.height ? d : a),
    undefined,
  );
  const width = largest ? Math.min(s.width, largest.width) : s.width;
  const height = largest ? Math.min(s.height, largest.height) : s.height;
  if (s.x === undefined || s.y === undefined) return { width, height, maximized: s.maximized };
  const { x, y } = s;
  // The top 40 px of the window (its title bar) must be on a display, else the user could not move it.
  const visible = displays.some(
    (d) => x + width > d.x + 40 && x < d.x + d.width - 40 && y >= d.y && y + 40 <= d.y + d.height,
  );
  return visible
    ? { x, y, width, height, maximized: s.maximized }
    : { width, height, maximized: s.maximized };
}
