/**
 * The typed API between the front ends (Electron renderer, browser, CLI) and the service: one map of
 * method -> request schema, with response types. Every payload is validated at the boundary with these
 * schemas. Preload and renderer import types from here only.
 */
import { z } from 'zod';
import type { ResolvedKit } from '../core/kits/kit.ts';
import type { ValidationResult, Violation } from '../core/lang/violation.ts';
import type { BuiltPrompt } from '../core/script/generator.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import type { OpenAiFunctionSchema } from '../core/tools/schema.ts';

const name = z.string().min(1).max(64).regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only');
const language = z.enum(['python', 'js', 'ts']);

export const requests = {
  'workspace.info': z.object({}).strict(),
  'sandboxes.list': z.object({}).strict(),
  'tools.list': z.object({ sandbox: name }).strict(),
  'tools.extract': z.object({ source: z.string().max(1_000_000) }).strict(),
  'kits.list': z.object({}).strict(),
  'scripts.validate': z
    .object({
      code: z.string().max(1_000_000),
      language,
      sandbox: name.optional(),
      kit: name.optional(),
      tools: z.array(name).max(500).optional(),
      strict: z.boolean().optional(),
    })
    .strict(),
  'prompts.build': z
    .object({
      task: z.string().min(1).max(20_000),
      sandbox: name,
      kit: name.optional(),
      language: language.optional(),
      attempt: z.number().int().min(1).max(100).optional(),
      previousScript: z.string().max(1_000_000).optional(),
      previousError: z.string().max(1_000_000).optional(),
    })
    .strict(),
} as const;

export interface ToolsView {
  sandbox: string;
  tools: SandboxTool[];
  problems: Violation[];
  prompt: string;
  openai: OpenAiFunctionSchema[];
}

export interface Responses {
  'workspace.info': { workspace: string; name: string; version: string };
  'sandboxes.list': { name: string; description: string; tools: number; problems: number }[];
  'tools.list': ToolsView;
  'tools.extract': Omit<ToolsView, 'sandbox'>;
  'kits.list': { name: string; sandbox: string; kit?: ResolvedKit; error?: string }[];
  'scripts.validate': ValidationResult;
  'prompts.build': BuiltPrompt;
}

export type Method = keyof typeof requests;
export type Request<M extends Method> = z.infer<(typeof requests)[M]>;
export type Response<M extends Method> = Responses[M];

/** Errors cross every boundary as data. */
export interface ApiError {
  code: string;
  message: string;
  details?: unknown;
}

export type ApiResult<M extends Method> = { ok: true; value: Response<M> } | { ok: false; error: ApiError };

/** The surface the renderer talks to: `window.toolsmith` in Electron, the web client in a browser. */
export type ToolsmithApi = { [M in Method]: (req: Request<M>) => Promise<Response<M>> };

export const METHODS = Object.keys(requests) as Method[];
