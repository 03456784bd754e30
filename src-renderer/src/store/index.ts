/** One zustand store of typed slices; components select narrowly (`useStore((s) => s.x)`). */
import { create } from 'zustand';
import { createAppSlice } from './app.ts';
import type { AppSlice } from './app.ts';
import { createConnectionsSlice } from './connections.ts';
import type { ConnectionsSlice } from './connections.ts';
import { createImagesSlice } from './images.ts';
import type { ImagesSlice } from './images.ts';
import { createRunsSlice } from './runs.ts';
import type { RunsSlice } from './runs.ts';
import { createRunSlice } from './run.ts';
import type { RunSlice } from './run.ts';
import { createSettingsSlice } from './settings.ts';
import type { SettingsSlice } from './settings.ts';
import { createSuitesSlice } from './suites.ts';
import type { SuitesSlice } from './suites.ts';
import { createTemplatesSlice } from './templates.ts';
import type { TemplatesSlice } from './templates.ts';
import { createToolsSlice } from './tools.ts';
import type { ToolsSlice } from './tools.ts';

export type Store = AppSlice &
  RunsSlice &
  RunSlice &
  SuitesSlice &
  ToolsSlice &
  TemplatesSlice &
  SettingsSlice &
  ConnectionsSlice &
  ImagesSlice;

export const useStore = create<Store>()((...a) => ({
  ...createAppSlice(...a),
  ...createRunsSlice(...a),
  ...createRunSlice(...a),
  ...createSuitesSlice(...a),
  ...createToolsSlice(...a),
  ...createTemplatesSlice(...a),
  ...createSettingsSlice(...a),
  ...createConnectionsSlice(...a),
  ...createImagesSlice(...a),
}));
