/** Progressive disclosure of large tool sets: the index, search and the size switch. */
import { describe, expect, it } from 'vitest';
import {
  disclosedManual,
  firstLine,
  searchTools,
  toolsIndex,
} from '../../../src-main/core/tools/disclosure.ts';
import type { Tool } from '../../../src-main/core/tools/model.ts';
import { toolsPrompt } from '../../../src-main/core/tools/prompt.ts';

const tool = (i: number): Tool => ({
  name: `fetch_record_${i}`,
  description: `Fetch record ${i} from the archive. Long details follow about pagination and errors.\nMore.`,
  parameters: [
    { name: 'record_id', type: 'str', description: 'the id', required: true, source: 'all' },
    { name: 'limit', type: 'int', description: 'at most', required: false, default: 10, source: 'all' },
  ],
  location: 'mcp',
});

describe('progressive disclosure', () => {
  it('the index has one line per tool with its signature and first sentence', () => {
    const idx = toolsIndex([tool(1), tool(2)]);
    expect(idx.split('\n').filter((l) => l.startsWith('  '))).toEqual([
      '  fetch_record_1(record_id: str, limit: int = 10): Fetch record 1 from the archive.',
      '  fetch_record_2(record_id: str, limit: int = 10): Fetch record 2 from the archive.',
    ]);
    expect(firstLine('x'.repeat(300))).toHaveLength(160);
  });

  it('switches to the index above the limit, and the index is much smaller', () => {
    const many = Array.from({ length: 100 }, (_, i) => tool(i));
    expect(disclosedManual(many.slice(0, 10), 30).kind).toBe('full');
    const big = disclosedManual(many, 30);
    expect(big.kind).toBe('index');
    expect(big.text.length * 2).toBeLessThan(toolsPrompt(many).length);
  });

  it('search ranks tools by their words, names first', () => {
    const tools = [tool(1), tool(2), { ...tool(3), name: 'archive_stats', description: 'Archive counts.' }];
    expect(searchTools(tools, 'archive').map((t) => t.name)).toEqual([
      'archive_stats',
      'fetch_record_1',
      'fetch_record_2',
    ]);
    expect(searchTools(tools, 'record 2').map((t) => t.name)[0]).toBe('fetch_record_2');
    expect(searchTools(tools, 'nothing-like-this')).toEqual([]);
  });
});
