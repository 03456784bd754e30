/** The MCP `code` tool's description, rendered from resources/prompts/mcp-code.md. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PromptMissingError,
  REQUIRED_PROMPTS,
  ScriptGenerator,
} from '../../../src-main/core/script/generator.ts';
import { extractTools } from '../../../src-main/core/tools/extract.ts';

const promptsDir = new URL('../../../resources/prompts/', import.meta.url);
const prompts = Object.fromEntries(
  readdirSync(promptsDir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => [f.slice(0, -3), readFileSync(new URL(f, promptsDir), 'utf8')]),
);
const toolsOf = (name: string) =>
  extractTools(
    readFileSync(new URL(`../../../resources/workspace/sandboxes/${name}/tools.py`, import.meta.url), 'utf8'),
  ).tools;

describe('codeToolDescription', () => {
  const gen = new ScriptGenerator(prompts);
  const text = gen.codeToolDescription(
    [
      { name: 'ecommerce', tools: toolsOf('ecommerce') },
      { name: 'support', tools: toolsOf('support') },
    ],
    'ecommerce',
    [
      { name: 'orders', sandbox: 'ecommerce' },
      { name: 'helpdesk', sandbox: 'support' },
    ],
  );

  it('names the sandboxes and the default, and says the run id comes back', () => {
    expect(text).toContain('default\n`ecommerce`; available: ecommerce, support');
    expect(text).toContain('Tools of the sandbox `ecommerce` (the default):');
    expect(text).toContain('Tools of the sandbox `support`:');
    expect(text).toMatch(/runId/);
    expect(text).toContain('kits: orders (ecommerce), helpdesk (support);');
  });

  it('without kits, no kits list', () => {
    const bare = gen.codeToolDescription([{ name: 'ecommerce', tools: toolsOf('ecommerce') }], 'ecommerce');
    expect(bare).not.toContain('kits:');
    expect(bare).toContain('the `kit_info` tool lists');
  });

  it("carries both languages' rules with their data filled in, and every tool's signature", () => {
    expect(text).toContain(gen.rules('python').trim());
    expect(text).toContain(gen.rules('js').trim());
    expect(text).not.toMatch(/\{\{/);
    for (const t of [...toolsOf('ecommerce'), ...toolsOf('support')])
      expect(text).toContain(`<tool name="${t.name}"`);
  });

  it('a missing prompt file is a clear error', () => {
    const only = Object.fromEntries(REQUIRED_PROMPTS.map((n) => [n, prompts[n] ?? '']));
    expect(() => new ScriptGenerator(only).codeToolDescription([], 'x')).toThrow(PromptMissingError);
  });
});
