/**
 * Pieces of a hostile tools.py shared by the tests that attack the worker with it (inherited-files,
 * second-walls-tools): Python source, put in a test's tools.py text as it is.
 */

/**
 * A top level that rewrites the worker's own modules as it loads (its wipe, its sweep, its job
 * namespaces): a tools.py that ran in the worker made every later job a plain fork with no cleanup.
 * `REWROTE` names the modules it reached (in a job's own process, its own copies), `TOKEN` is drawn at
 * each load. Needs `os` and `sys` imported before it.
 */
export const REWRITE_WORKER = `_w = sys.modules.get("toolsmith_worker.worker")
_h = sys.modules.get("toolsmith_worker.hygiene")
_j = sys.modules.get("toolsmith_worker.jobns")
for _m in (_w, _h):
    if _m is not None:
        _m.wipe_writable = lambda *a, **k: None
        _m.clean_namespace = lambda *a, **k: True
        _m.reap_strays = lambda *a, **k: None
if _j is not None:
    _j.wanted = lambda: False
    _j.clone_job = lambda *a, **k: None
REWROTE = [m.__name__ for m in (_w, _h, _j) if m is not None]
TOKEN = os.urandom(8).hex()
`;

/** `_read(path)`: a file's text, or the name of the error that kept it from being read. */
export const READ_FILE = `def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return type(e).__name__
`;
