/**
 * What a user's machine does to the CLI's own files and output, each met by a real `toolsmith`
 * process: a path whose folder is missing, an output on a full disk, a config or a store path that is
 * a folder or a symbolic link loop, a run store left with stale side files. Each is one line naming
 * the file and the cause, exit 2 (the user's path) or 3 (the machine), never a stack; the store's own
 * faults are repaired where that is safe.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess } from './support/processes.ts';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';
import { runStarted } from '../../support/run-records.ts';

const fx = useScriptedWorkspace({ dataPerTest: true });
const dot = () => join(fx.ws, '.toolsmith');
const db = () => join(dot(), 'runs.db');
const config = () => join(dot(), 'config.toml');
let configText: Buffer | undefined;
let runId = '';

beforeEach(() => {
  for (const f of readdirSync(dot()))
    if (f.startsWith('runs.db')) rmSync(join(dot(), f), { recursive: true, force: true });
  if (!configText) configText = readFileSync(config());
  rmSync(config(), { recursive: true, force: true });
  writeFileSync(config(), configText);
  const store = new RunStore(db());
  try {
    runId = store.createRun(runStarted('a run to export'));
    store.append(runId, 'run_finished', { status: 'succeeded', result: 1 });
  } finally {
    store.close();
  }
});

const cli = (...args: string[]) => cliProcess(fx.ws, fx.data, args).done;

/** One line on stderr, matching `pattern`, with `code`; no stack, no "internal error". */
function oneLine(r: { code: number | null; err: string }, code: number, pattern: RegExp): void {
  expect(r.err).toMatch(pattern);
  expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
  expect(r.err).not.toMatch(/internal error|\n\s+at /);
  expect(r.code).toBe(code);
}

describe('the CLI meets its files', () => {
  it('runs export -o into a folder that does not exist: one line, exit 2', async () => {
    const r = await cli('runs', 'export', runId, '-o', 'missing/dir/file.json');
    oneLine(
      r,
      2,
      /^toolsmith: missing\/dir\/file\.json cannot be written: its folder .+\/missing\/dir does not exist/,
    );
  });

  it('runs export -o onto a folder: one line, exit 2', async () => {
    const out = join(fx.data, 'a-folder');
    mkdirSync(out);
    const r = await cli('runs', 'export', runId, '-o', out);
    oneLine(r, 2, /^toolsmith: .+?a-folder: open failed: EISDIR: it is a folder/);
  });

  it('the output on a full disk (stdout is /dev/full): one line, exit 3', async () => {
    const full = openSync('/dev/full', 'w');
    const child = spawn(...toolsmithArgv(fx.ws, ['runs', 'export', runId]), {
      stdio: ['ignore', full, 'pipe'],
      env: { ...process.env, TOOLSMITH_DATA_DIR: fx.data },
    });
    closeSync(full);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    oneLine(
      { code, err },
      3,
      /^toolsmith: disk full: the output could not be written \(ENOSPC: no space left on device\)/,
    );
  });

  it('runs import of a folder: one line, exit 2', async () => {
    const r = await cli('runs', 'import', fx.data);
    expect(r.code).toBe(2);
    expect(r.err).not.toMatch(/internal error|\n\s+at /);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('config.toml is a folder: refused naming the file and the reason', async () => {
    rmSync(config());
    mkdirSync(config());
    const r = await cli('mcp-servers', 'list');
    oneLine(r, 3, /config\.toml cannot be read: it is a folder, not a file \(EISDIR\)/);
  });

  it('config.toml is a symbolic link loop: refused naming the file and the reason', async () => {
    rmSync(config());
    symlinkSync(config(), config());
    const r = await cli('mcp-servers', 'list');
    oneLine(r, 3, /config\.toml cannot be read: it is a symbolic link loop \(ELOOP\)/);
  });

  it('config.toml is a link to nothing: refused, naming where it points', async () => {
    rmSync(config());
    symlinkSync(join(fx.data, 'gone.toml'), config());
    const r = await cli('mcp-servers', 'list');
    oneLine(
      r,
      3,
      /config\.toml cannot be read: it is a symbolic link to .+?gone\.toml, which does not exist/,
    );
  });

  it('config.toml cut short in a table header, or in a string: one line naming the file, the line, what is wrong and that it looks cut short', async () => {
    const text = configText!.toString();
    const midTable = text.slice(0, text.indexOf('[[providers]]') + 4);
    writeFileSync(config(), midTable);
    const line = midTable.split('\n').length;
    // Before: "config.toml:N:3: Invalid TOML document: incomplete key-value: cannot find end of key".
    oneLine(
      await cli('mcp-servers', 'list'),
      3,
      new RegExp(
        `config\\.toml:${line}:\\d+: a table header that is not closed \\("\\[\\[pr": it needs its "\\]\\]"\\); the file ends there, in the middle of line ${line} \\("\\[\\[pr"\\), with no line break: it looks cut short \\(written only in part, or still being written\\); finish it or put back a whole copy`,
      ),
    );
    const midString = text.slice(0, text.indexOf('base_url = "') + 16);
    writeFileSync(config(), midString);
    oneLine(
      await cli('mcp-servers', 'list'),
      3,
      new RegExp(
        `config\\.toml:${midString.split('\n').length}:\\d+: Invalid TOML document: unfinished string; the file ends there, in the middle of line \\d+ \\("base_url = \\\\"http"\\), with no line break: it looks cut short`,
      ),
    );
  });

  it('runs.db is a folder: one line naming it', async () => {
    for (const f of readdirSync(dot())) if (f.startsWith('runs.db')) rmSync(join(dot(), f));
    mkdirSync(db());
    const r = await cli('runs', 'list');
    oneLine(r, 3, /^toolsmith: the run store .+?runs\.db is a folder; move it away/);
  });

  it('runs.db is a symbolic link loop: one line naming it', async () => {
    for (const f of readdirSync(dot())) if (f.startsWith('runs.db')) rmSync(join(dot(), f));
    symlinkSync(db(), db());
    const r = await cli('runs', 'list');
    oneLine(r, 3, /^toolsmith: the run store .+?runs\.db cannot be opened \(ELOOP: a symbolic link loop\)/);
  });

  it('a store from a newer Toolsmith: one line, no stack', async () => {
    const store = new RunStore(db());
    store.db.exec("UPDATE meta SET value = '999' WHERE key = 'schema_version'");
    store.close();
    const r = await cli('runs', 'list');
    oneLine(r, 3, /runs\.db has schema version 999, newer than this Toolsmith \(\d+\); upgrade Toolsmith/);
  });

  it('runs.db deleted by hand, its -wal and -shm left: removed with a line, the store starts anew', async () => {
    writeFileSync(`${db()}-wal`, Buffer.alloc(8192, 7));
    writeFileSync(`${db()}-shm`, Buffer.alloc(32768, 1));
    rmSync(db());
    const r = await cli('runs', 'list', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(
      /the run store .+?runs\.db was repaired: removed .+?-wal and .+?-shm left without their database/,
    );
    expect((JSON.parse(r.out) as { runs: unknown[] }).runs).toEqual([]);
  });

  it('a -shm that describes a WAL which is gone (nobody has the store open): the store opens, the runs are there', async () => {
    // A -shm from a live store, kept while its WAL is deleted.
    const store = new RunStore(db());
    store.createRun(runStarted('second run'));
    const shm = readFileSync(`${db()}-shm`);
    store.close();
    writeFileSync(`${db()}-shm`, shm);
    rmSync(`${db()}-wal`, { force: true });
    const r = await cli('runs', 'list', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toMatch(/disk I\/O error|internal error/);
    expect((JSON.parse(r.out) as { runs: unknown[] }).runs.length).toBeGreaterThanOrEqual(1);
  });

  it('runs recover of a store that is not damaged: one line, nothing changed', async () => {
    const before = readFileSync(db());
    const r = await cli('runs', 'recover');
    oneLine(
      r,
      3,
      /^toolsmith: the run store .+?runs\.db is not damaged \(SQLite's integrity check finds nothing wrong in it\): there is nothing to recover, and nothing was changed/,
    );
    // Before: rewritten, and the whole store moved aside as "the damaged file".
    expect(readdirSync(dot()).filter((f) => /^runs\.db\.(damaged|recovered)-/.test(f))).toEqual([]);
    expect(readFileSync(db()).equals(before)).toBe(true);
    const list = await cli('runs', 'list', '--json');
    expect((JSON.parse(list.out) as { runs: { id: string }[] }).runs.map((x) => x.id)).toEqual([runId]);
  });

  it('runs recover without a store: one line', async () => {
    for (const f of readdirSync(dot())) if (f.startsWith('runs.db')) rmSync(join(dot(), f));
    const r = await cli('runs', 'recover');
    oneLine(r, 3, /^toolsmith: there is no run store at .+?runs\.db: nothing to recover/);
    expect(existsSync(db())).toBe(false);
  });
});
