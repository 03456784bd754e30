/**
 * `--file -` / `-` read standard input whole, however late the writer is. The service's terminal
 * approval touches `process.stdin`, which makes a pipe's descriptor non-blocking, and `readFileSync(0)`
 * then failed with EAGAIN ("cannot read -: EAGAIN", exit 2) when the writer was slower than the command's
 * start: `(sleep 1; cat f.py) | toolsmith template create t --file - --pattern ...`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { sourceBin } from '../../support/cli-bin.ts';
import { cliArgv } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

function slowStdin(args: string[], input: string, delayMs: number) {
  const p = spawn(...cliArgv(args, sourceBin), {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TOOLSMITH_HOME: mkdtempSync(join(tmpdir(), 'toolsmith-home-')) },
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d: Buffer) => (out += String(d)));
  p.stderr.on('data', (d: Buffer) => (err += String(d)));
  const timer = setTimeout(() => p.stdin.end(input), delayMs);
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
}

describe('standard input from a slow writer', () => {
  it(
    'template create --file - waits for the script instead of failing with EAGAIN',
    async () => {
      const ws = tempWorkspace();
      try {
        const r = await slowStdin(
          [
            '-w',
            ws,
            'template',
            'create',
            'one',
            '--file',
            '-',
            '--pattern',
            'give one',
            '--sandbox',
            'ecommerce',
          ],
          'emit_result(1)\n',
          1500,
        );
        expect(r.err).not.toContain('EAGAIN');
        expect(r.code).toBe(0);
        expect(r.out).toContain('created template one');
        expect(readFileSync(join(ws, 'templates', 'one.tmpl'), 'utf8')).toContain('emit_result(1)');
      } finally {
        removeWorkspace(ws);
      }
    },
    STARTS_PROCESSES_MS,
  );
});
