/**
 * A one-shot verb meets a config.toml cut short (a write that stopped half-way, or is still going on).
 * A file that no longer parses was already refused, naming the line and that it looks cut short. Two
 * cuts parse: one that leaves a reference to a table after the cut is refused (it is an error anyway),
 * its message adding that the file looks cut short; one that is valid is used, with a warning in the
 * live server's words (the tables after the cut fall back to their defaults). Before, both were taken
 * without a word about the cut. A file whose last line ends a value whole (a quote, a bracket) is how an
 * editor that adds no final line break saves it: no warning on every verb for that. A file that ends in
 * a bare table header whose empty table changes nothing (`[limits]`, the cut right after it) is warned
 * about, with or without a final line break; one whose empty table means something is not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let file: string;
let whole: string;

beforeAll(() => {
  ws = tempWorkspace('toolsmith-config-cut-short-');
  file = join(ws, '.toolsmith', 'config.toml');
  whole = readFileSync(file, 'utf8');
});
afterAll(() => removeWorkspace(ws));

const lineCount = (t: string) => t.split('\n').length;

describe('a config.toml cut short where it still parses', () => {
  it('valid as cut: the verb answers, warning with the file, the line and what to do', async () => {
    const cut = whole.slice(0, whole.indexOf('max_size = 2') + 'max_size = 2'.length);
    writeFileSync(file, cut);
    const r = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toBeTypeOf('object');
    expect(r.err).toContain(
      `toolsmith: warning: ${file}:${lineCount(cut)}: the file ends in the middle of line ${lineCount(cut)} ("max_size = 2") with no line break: if it is cut short (written only in part, or still being written), the tables after the cut are missing and their defaults apply; put back a whole copy, or end the file with a line break if the shorter config is meant`,
    );
    // The same file ended with a line break: meant as it is, nothing said.
    writeFileSync(file, `${cut}\n`);
    const meant = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
    expect(meant.code, meant.err).toBe(0);
    expect(meant.err).toBe('');
  });

  it('the whole file saved with no final line break (an editor that adds none): nothing said', async () => {
    // The sample ends with a string; an array ends a value whole too.
    for (const text of [whole.trimEnd(), `${whole}[approval]\nsandboxes = ["support"]`]) {
      writeFileSync(file, text);
      const r = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe('');
    }
    // A last line that is a comment (where a cut still parses) is still warned about.
    writeFileSync(file, `${whole}# the end of the sh`);
    const comment = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
    expect(comment.err).toContain('the file ends in the middle of line');
    writeFileSync(file, whole);
  });

  it('ends in a bare table header that changes nothing ([limits] and nothing under it): warned, with or without a final line break', async () => {
    // The same bytes as a person's empty table; but an empty table that changes nothing has no reason
    // to be written last, so it is read as a write that stopped after the header.
    const atLimits = whole.slice(0, whole.indexOf('[limits]') + '[limits]'.length);
    for (const [cut, header] of [
      [atLimits, '[limits]'],
      [`${whole}[prices]`, '[prices]'],
      [`${whole}[mcp]`, '[mcp]'],
    ] as const) {
      for (const text of [cut, `${cut}\n`, `${cut}\n\n`]) {
        writeFileSync(file, text);
        const r = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
        expect(r.code, r.err).toBe(0);
        expect(r.err).toBe(
          `toolsmith: warning: ${file}:${lineCount(cut)}: the file ends with the table header "${header}" and nothing under it, which is the same as no such table: if it is cut short (written only in part, or still being written), the keys under it and the tables after it are missing and their defaults apply; put back a whole copy, or remove the empty table if the shorter config is meant\n`,
        );
      }
    }
    writeFileSync(file, whole);
  });

  it("ends in an empty table that means something (a sandbox offered all of a server's tools): nothing said", async () => {
    const server = '\n[mcp_servers.memory]\ncommand = "npx"\n\n[sandboxes.ecommerce.mcp.memory]';
    try {
      for (const text of [`${whole}${server}`, `${whole}${server}\n`]) {
        writeFileSync(file, text);
        const r = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
        expect(r.code, r.err).toBe(0);
        expect(r.err).toBe('');
      }
    } finally {
      writeFileSync(file, whole);
    }
  });

  it("a last line's strings are not quoted back (an MCP server's env takes literal values: a token)", async () => {
    const token = 'ghp_qa18LiteralTokenInConfig0123456789';
    const server = `\n[mcp_servers.gh]\ncommand = "npx"\nenv = { GITHUB_TOKEN = "${token}" } # my token`;
    try {
      // Valid as it is, with no final line break (a comment last): warned about, the token not quoted.
      writeFileSync(file, `${whole}${server}`);
      const warned = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
      expect(warned.code, warned.err).toBe(0);
      expect(warned.err).toContain('the file ends in the middle of line');
      expect(warned.err).toContain('GITHUB_TOKEN = \\"…\\" } # my token');
      expect(warned.err).not.toContain('ghp_qa18');
      // Cut inside the token: refused as cut short, the part of it written not quoted either.
      writeFileSync(file, `${whole}${server}`.slice(0, -' } # my token'.length - 10));
      const cut = await runToolsmith(ws, ['mcp-servers', 'list']);
      expect(cut.code).toBe(3);
      expect(cut.err).toContain('it looks cut short');
      expect(cut.err).not.toContain('ghp_qa18');
    } finally {
      writeFileSync(file, whole);
    }
  });

  it('a reference to a table after the cut: refused, naming the file, the line, the missing table and the cut', async () => {
    const tail = '\n[sandboxes.ecommerce.mcp.memory]\n\n[mcp_servers.memory]\ncommand = "npx"\n';
    const full = `${whole}${tail}`;
    const cut = full.slice(
      0,
      full.indexOf('[sandboxes.ecommerce.mcp.memory]') + '[sandboxes.ecommerce.mcp.memory]'.length,
    );
    writeFileSync(file, cut);
    const r = await runToolsmith(ws, ['mcp-servers', 'list']);
    expect(r.code).toBe(3);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(
      `${file}:${lineCount(cut)}: sandboxes.ecommerce.mcp.memory: no [mcp_servers.memory] is declared; declared: none; the file ends in the middle of line ${lineCount(cut)} ("[sandboxes.ecommerce.mcp.memory]") with no line break: it looks cut short (written only in part, or still being written); put back a whole copy`,
    );
    // The whole file back: taken, nothing said.
    writeFileSync(file, full);
    const back = await runToolsmith(ws, ['mcp-servers', 'list', '--json']);
    expect(back.code, back.err).toBe(0);
    expect(back.err).toBe('');
  });
});
