/** One zustand store of typed slices; components select narrowly (`useStore((s) => s.x)`). */
import { create } from 'zustand';
import { createAppSlice } from './app.ts';
import type { AppSlice } from './app.ts';
import { createRunsSlice } from './runs.ts';
import type { RunsSlice } from './runs.ts';
import { createRunSlice } from './run.ts';
import type { RunSlice } from './run.ts';
import { createSuitesSlice } from './suites.ts';
import type { SuitesSlice } from './suites.ts';

export type Store = AppSlice & RunsSlice & RunSlice & SuitesSlice;

export const useStore = create<Store>()((...a) => ({
  ...createAppSlice(...a),
  ...createRunsSlice(...a),
  ...createRunSlice(...a),
  ...createSuitesSlice(...a),
}));
