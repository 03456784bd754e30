/**
 * The line an upstream MCP server's progress report becomes when it is relayed to Toolsmith's client:
 * the tool, the server's message on one line and capped, and its count (of the total when given).
 */
import { describe, expect, it } from 'vitest';
import { toolProgressLine } from '../../../src-main/mcp/mcp-code.ts';

describe('toolProgressLine', () => {
  it('names the tool, the message and the count', () => {
    expect(toolProgressLine('copy', { progress: 2, total: 5, message: 'copying b.txt' })).toBe(
      'copy: copying b.txt (2/5)',
    );
    expect(toolProgressLine('copy', { progress: 0.5 })).toBe('copy: progress 0.5');
    expect(toolProgressLine('copy', { progress: 3, message: '  ' })).toBe('copy: progress 3');
  });

  it('keeps a server message to one line of at most 300 characters', () => {
    const line = toolProgressLine('t', { progress: 1, message: `a\nb\r\n${'x'.repeat(1000)}` });
    expect(line).not.toMatch(/[\r\n]/);
    expect(line.startsWith('t: a b xxx')).toBe(true);
    expect(line.length).toBeLessThan(320);
  });
});
