/**
 * Image builds started from Settings › Sandbox: a runtime image (python, node...) or a sandbox's
 * derived image (its dependencies), each with the build log streamed by `image_progress` pushes.
 */
import type { StateCreator } from 'zustand';
import type { RuntimeId } from '../../../src-main/core/sandbox/runtimes.ts';
import { api, errorMessage } from '../api/client.ts';
import { foldImageProgress } from '../lib/builds.ts';
import type { Builds, DepsBuild, ImageBuild, ImageProgress } from '../lib/builds.ts';
import type { Store } from './index.ts';

export type Runtime = RuntimeId;

export type { DepsBuild, ImageBuild, ImageProgress } from '../lib/builds.ts';

export interface ImagesSlice extends Builds {
  buildImage(runtime: Runtime): Promise<void>;
  /** Builds a sandbox's derived images, python then node. */
  buildDeps(sandbox: string): Promise<void>;
  onImageProgress(e: ImageProgress): void;
  /** Forgets the builds shown (the Settings view starts without them). */
  clearBuilds(): void;
}

export const createImagesSlice: StateCreator<Store, [], [], ImagesSlice> = (set, get) => {
  const putImage = (runtime: string, f: (b: ImageBuild | undefined) => ImageBuild) =>
    set({ imageBuilds: { ...get().imageBuilds, [runtime]: f(get().imageBuilds[runtime]) } });
  const putDeps = (sandbox: string, f: (b: DepsBuild | undefined) => DepsBuild) =>
    set({ depsBuilds: { ...get().depsBuilds, [sandbox]: f(get().depsBuilds[sandbox]) } });
  return {
    imageBuilds: {},
    depsBuilds: {},
    async buildImage(runtime) {
      putImage(runtime, () => ({ running: true, lines: [`building the ${runtime} image…`] }));
      try {
        const r = await api['system.buildImage']({ runtime });
        putImage(runtime, (b) => ({ ...(b ?? { lines: [] }), running: false, tag: r.tag }));
      } catch (e) {
        putImage(runtime, (b) => ({ ...(b ?? { lines: [] }), running: false, error: errorMessage(e) }));
      }
      await get().loadStatus();
    },
    async buildDeps(sandbox) {
      putDeps(sandbox, () => ({ running: true, lines: [], tags: [] }));
      const tags: string[] = [];
      try {
        for (const runtime of ['python', 'node'] as const)
          tags.push((await api['system.buildImage']({ runtime, sandbox })).tag);
        putDeps(sandbox, (b) => ({ ...(b ?? { lines: [] }), running: false, tags }));
      } catch (e) {
        putDeps(sandbox, (b) => ({ ...(b ?? { lines: [] }), running: false, tags, error: errorMessage(e) }));
      }
    },
    onImageProgress(e) {
      set(foldImageProgress(get(), e));
      if (e.done && !e.sandbox) void get().loadStatus();
    },
    clearBuilds() {
      set({ imageBuilds: {}, depsBuilds: {} });
    },
  };
};
