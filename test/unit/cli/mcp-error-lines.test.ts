/**
 * An MCP server that cannot start, named in the workspace's config (a cloned repository's, say): the
 * error quotes its command, and `toolsmith sandboxes` printed that line raw, so an OSC title set (or a
 * clipboard write) in the command acted on the terminal; `mcp-servers test` showed the same error
 * through visible(). Both show control characters as escapes now (the CLI in process).
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace('toolsmith-mcp-error-lines-');
appendFileSync(
  join(ws, '.toolsmith/config.toml'),
  '\n[mcp_servers.evil]\ncommand = "/nonexistent/evil\\u001b]0;owned\\u0007"\ntimeout_ms = 5000\n\n[sandboxes.evil]\ndescription = "x"\n[sandboxes.evil.mcp.evil]\n',
);
afterAll(() => removeWorkspace(ws));

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('an MCP server that cannot start, its command holding an escape sequence', () => {
  it('sandboxes and mcp-servers test name it with the sequence shown as escapes', async () => {
    for (const args of [['sandboxes'], ['mcp-servers', 'test', 'evil']]) {
      const r = await cli('--workspace', ws, ...args);
      expect(r.err, args.join(' ')).toContain('/nonexistent/evil\\x1b]0;owned\\x07');
      expect(r.err, args.join(' ')).not.toMatch(CONTROL);
    }
  });
});
