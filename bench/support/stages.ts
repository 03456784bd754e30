/**
 * The stamps of `npm run bench:stages`: a copy of sandbox-images with a mark at each stage of a job's
 * process (its thread CPU time in µs and its page faults so far, both zero in a new process), written
 * as one `TOOLSMITH_STAGES [[name, µs, faults], ...]` line of output before the job's done. Put in by
 * text, so the product's files stay as they are; each anchor must be found exactly once
 * (test/unit/bench/stages.test.ts checks them against the current worker).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The stage names in the order a job's process passes them, and where each stamp goes. */
const STAMP = (name: string, indent: string, mod = '') =>
  `${indent}${mod}_toolsmith_stage(${JSON.stringify(name)})\n`;
const EDITS: { file: string; anchor: string; stamp: string; before?: boolean }[] = [
  // jobns.py: the stamp helper (module globals only: no import in the new process), the clone's return
  {
    file: 'jobns.py',
    anchor: 'import ctypes\n',
    stamp:
      'import os as _os\nimport resource as _rs\nimport time as _tm\n_STAGES = []\n_STAGES_BASE = [0]\n_MEMINFO = [-1]\n\n\n' +
      // gVisor: the sandbox's AnonPages (kB) in place of the faults (which it does not count): each 2 MiB
      // range a process copies on a write after a fork adds 2048 (docs/scaling.md)
      'def _toolsmith_anon():\n    try:\n        if _MEMINFO[0] < 0:\n            _MEMINFO[0] = _os.open("/proc/meminfo", _os.O_RDONLY)\n        t = _os.pread(_MEMINFO[0], 4096, 0)\n        i = t.index(b"AnonPages:")\n        return int(t[i + 10 : t.index(b"kB", i)])\n    except (OSError, ValueError):\n        return -1\n\n\n' +
      'def _toolsmith_stage(name):\n    _STAGES.append((name, _TOOLSMITH_CLOCK() // 1000 - _STAGES_BASE[0], _TOOLSMITH_COUNT()))\n\n\n',
  },
  // (wall clock: the moment the fork server asks for the clone, which the new process inherits)
  {
    file: 'jobns.py',
    anchor: '    before()\n    pid = lib.syscall(',
    stamp:
      '    _STAGES_BASE[0] = _TOOLSMITH_CLOCK() // 1000 if _TOOLSMITH_CLOCK is _tm.monotonic_ns else 0\n' +
      // (gVisor: the sandbox's memory when the clone is asked for, the first stage's base; the C loop's
      // children inherit the one of the fork server's first clone, made by Python: both when no job's
      // process is alive, so the C loop's first stage counts its copies too)
      '    _STAGES[:] = [("clone", 0, _TOOLSMITH_COUNT())] if _TOOLSMITH_CLOCK is _tm.monotonic_ns else []\n',
  },
  {
    file: 'jobns.py',
    anchor: '        after_child()\n        return 0\n',
    stamp: STAMP('clone to first line', '        '),
  },
  {
    file: 'jobns.py',
    anchor: '        after_child()\n',
    stamp: STAMP('after-fork hooks', '        '),
    before: false,
  },
  {
    file: 'jobns.py',
    anchor: '    if lib.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0:\n',
    stamp: STAMP('id maps', '    '),
  },
  {
    file: 'jobns.py',
    anchor: '    # Every capability it holds in its own user namespace',
    stamp: STAMP('mounts and /proc', '    '),
  },
  // (gVisor: a rooted job's tree, chroot and uid)
  {
    file: 'jobns.py',
    anchor:
      '    walls = ["pid", "ipc"] + (["net"] if ROOTED_FLAGS & CLONE_NEWNET else [])\n    try:\n        cwd = os.getcwd()\n',
    stamp: STAMP('rooted: before its tree', '    '),
  },
  {
    file: 'jobns.py',
    anchor: '    if bound:\n        for wall, source, point, fstype, flags, data in tree[1:]:\n',
    stamp: STAMP('rooted: root bound', '    '),
  },
  {
    file: 'jobns.py',
    anchor: '        try:\n            os.chdir(root)\n            os.chroot(".")\n',
    stamp: STAMP('rooted: tree mounted', '        '),
  },
  {
    file: 'jobns.py',
    anchor: '    try:\n        os.setgroups([])\n',
    stamp: STAMP('rooted: chroot', '    '),
  },
  {
    file: 'jobns.py',
    anchor: '    if "pts" in walls:\n        _refuse_ptys()  # (its tree',
    stamp: STAMP('rooted: uid', '    '),
  },
  {
    file: 'jobns.py',
    anchor: '    if plan["prog"] is not None and hygiene.load_filter',
    stamp: STAMP('capabilities', '    '),
  },
  {
    file: 'forkserver.py',
    anchor: '        wall = alone and want is not None and want.issubset(walls)\n',
    stamp: STAMP('seccomp filter', '        ', 'jobns.'),
  },
  // (the fork server's C loop: the clone and the after-fork hooks are one stage, both in C)
  {
    file: 'forkserver.py',
    anchor: '                s = loop.state\n',
    stamp: STAMP('clone and after-fork hooks (C loop)', '                ', 'jobns.'),
  },
  {
    file: 'child.py',
    anchor: '        failed = _load(child, msg_w, out_w, describe)\n',
    stamp: STAMP('walls line', '        ', '_jobns.'),
  },
  // (tools.py run in the job's own process: its top level, its imports, the tools' signatures)
  {
    file: 'child.py',
    anchor: '        no_dump()  # (whatever tools.py did with it)\n',
    stamp: STAMP('tools.py load', '        ', '_jobns.'),
  },
  {
    file: 'child.py',
    anchor: '        if failed is None:\n            child.wall()\n',
    stamp: STAMP('child setup', '        ', '_jobns.'),
  },
  {
    file: 'child.py',
    anchor: '            _rehearse(child, msg_w, job_r)',
    stamp: STAMP('runtime wall', '            ', '_jobns.'),
  },
  {
    file: 'child.py',
    anchor: '        head = read_exact(job_r, 4)\n',
    stamp: STAMP('rehearsal', '        ', '_jobns.'),
  },
  {
    file: 'child.py',
    anchor: '        child.job = ChildJob(\n',
    stamp: STAMP('job read', '        ', '_jobns.'),
  },
  {
    file: 'child.py',
    anchor: '        self.done({"type": "done", "ok": True})\n',
    stamp: `${STAMP('job run', '        ', '_jobns.')}        os.write(1, ("TOOLSMITH_STAGES " + encode(_jobns._STAGES) + "\\n").encode())\n`,
  },
  {
    file: 'child.py',
    anchor: 'from .protocol import encode, loads, read_exact, write_all\n',
    stamp: 'from . import jobns as _jobns\n',
    before: false,
  },
];

/** A copy of `source` (sandbox-images) with the stamps in (the worker's own files are not touched). */
export function instrumentedImages(source: string, clock: 'thread' | 'wall' = 'thread'): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-stages-'));
  cpSync(source, dir, { recursive: true });
  const pkg = join(dir, 'python', 'toolsmith_worker');
  try {
    for (const e of EDITS) {
      const path = join(pkg, e.file);
      const text = readFileSync(path, 'utf8');
      const at = text.indexOf(e.anchor);
      if (at < 0 || text.indexOf(e.anchor, at + 1) >= 0)
        throw new Error(
          `bench:stages: the anchor ${JSON.stringify(e.anchor)} is not found once in ${e.file}: update bench/support/stages.ts`,
        );
      const pos = e.before === false ? at + e.anchor.length : at;
      const stamp =
        e.anchor === 'import ctypes\n'
          ? `${e.stamp}_TOOLSMITH_CLOCK = _tm.${clock === 'wall' ? 'monotonic_ns' : 'thread_time_ns'}\n` +
            `_TOOLSMITH_COUNT = ${clock === 'wall' ? '_toolsmith_anon' : 'lambda: _rs.getrusage(_rs.RUSAGE_SELF).ru_minflt'}\n\n\n`
          : e.stamp;
      writeFileSync(path, text.slice(0, pos) + stamp + text.slice(pos));
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return dir;
}
