/**
 * Image builds as pure data: the state of a runtime image's or a sandbox's dependency build, and the
 * fold of an `image_progress` push into them (store/images.ts holds them).
 */
import type { PushEvent } from '../../../src-main/contract/api.ts';

export interface ImageBuild {
  running: boolean;
  lines: string[];
  error?: string;
  tag?: string;
}

export interface DepsBuild {
  running: boolean;
  lines: string[];
  tags: string[];
  error?: string;
}

export type ImageProgress = Extract<PushEvent, { type: 'image_progress' }>;

export interface Builds {
  /** Runtime image builds by runtime. */
  imageBuilds: Partial<Record<string, ImageBuild>>;
  /** Dependency image builds by sandbox. */
  depsBuilds: Partial<Record<string, DepsBuild>>;
}

/** A build log keeps its last lines. */
export const MAX_BUILD_LINES = 400;

/** Folds one progress line into the builds (runtime images, or a sandbox's when `sandbox` is set). */
export function foldImageProgress(builds: Builds, e: ImageProgress): Builds {
  if (e.sandbox) {
    const cur = builds.depsBuilds[e.sandbox] ?? { running: true, lines: [], tags: [] };
    return {
      ...builds,
      depsBuilds: {
        ...builds.depsBuilds,
        [e.sandbox]: { ...cur, lines: [...cur.lines, e.line].slice(-MAX_BUILD_LINES) },
      },
    };
  }
  const cur = builds.imageBuilds[e.runtime] ?? { running: true, lines: [] };
  return {
    ...builds,
    imageBuilds: {
      ...builds.imageBuilds,
      [e.runtime]: {
        ...cur,
        running: e.done ? false : cur.running,
        lines: [...cur.lines, e.line].slice(-MAX_BUILD_LINES),
        ...(e.error ? { error: e.error } : {}),
      },
    },
  };
}
