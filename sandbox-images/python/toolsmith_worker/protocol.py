"""The protocol stream: the worker's compact JSON codec and its one writer of protocol lines.

Only the worker writes to the real stdout (OUT_FD, a copy of fd 1 made at import, before fd 1 is pointed
at /dev/null); a turn's lines are queued by send and written together by flush.
"""

import json
import os
import socket

# The harness keeps its own references: a script may reassign module attributes (json.loads = None) in
# its own process, and that must only break the script, never the protocol.
loads = json.loads


def _not_serializable(o):
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _compact_encoder(default):
    """json.dumps(o, separators=(",", ":")) without building an encoder per call: the C encoder is made
    once (no circular-reference markers: a circular value ends in RecursionError instead of ValueError)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(separators=(",", ":"), default=default).encode
    encoder = make(None, default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)
    join = "".join
    return lambda o: join(encoder(o, 0))


encode = _compact_encoder(_not_serializable)
encode_out = _compact_encoder(str)

PROTOCOL = 1
MAX_LINE = 1 << 20  # a host line larger than this is refused
HOST_MAX_LINE = 4 << 20  # the host refuses a worker line larger than this (MAX_WORKER_LINE)

OUT_FD = os.dup(1)
_pending = []

# The protocol's input: stdin, or the protocol socket (use_socket) put in its place.
IN_FD = 0


def use_socket(path):
    """Speaks the protocol on the host's unix socket at `path` (a local Docker engine mounts its folder;
    docs/protocol.md) instead of stdin/stdout, which reach the host through dockerd. The socket takes the
    two descriptors' places (IN_FD, OUT_FD), so everything that guards them guards it too: the fork server
    closes OUT_FD and points fd 0 at /dev/null, and no script's process ever holds the socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    fd = s.detach()
    os.dup2(fd, OUT_FD, inheritable=False)
    os.dup2(fd, IN_FD)
    os.close(fd)


def send(msg):
    """Queues a protocol line; the loop writes what one turn produced with a single write (flush)."""
    _pending.append(encode_out(msg).encode() + b"\n")


def flush():
    if _pending:
        data = b"".join(_pending)
        _pending.clear()
        try:
            write_all(OUT_FD, data)
        except OSError:  # the host went away
            os._exit(0)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_exact(fd, n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf
