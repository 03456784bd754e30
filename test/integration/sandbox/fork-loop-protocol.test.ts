/**
 * The fork server's socket protocol (docs/protocol.md) driven directly, inside the python image with the sandbox's
 * HostConfig: the same script with the C loop and with the Python loop alone (`noforkloop`) must give the
 * same transcript (messages byte for byte, pids by order, the job process's fds, ids and walls), also with
 * more children alive at once than the C loop's arrays hold (TS_MAX_CHILDREN = 16: its TS_FULL fallback).
 */
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { hostConfig } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { requireDocker, TEST_LIMITS } from '../../support/sandbox.ts';

const SCRIPT = String.raw`
import json, os, select, socket, sys, time
sys.path.insert(0, "/opt/toolsmith")
from toolsmith_worker import forkserver, hygiene, jobns

def fake_child_main(child, job_r, msg_w, out_w, walls):
    fds = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds[fd] = os.readlink(f"/proc/self/fd/{fd}").split(":")[0]
        except OSError:
            pass
    info = {"fds": sorted(fds.values()), "ids": [os.getresuid(), os.getresgid()], "walls": sorted(jobns.WALLS), "line": walls.decode()}
    os.write(msg_w, json.dumps(info).encode() + b"\n")
    b = os.read(job_r, 1)
    os._exit(b[0] if b else 0)

forkserver.child_main = fake_child_main
ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
server = os.fork()
if server == 0:
    try:
        ours.close()
        forkserver.fork_server(theirs, None)
    finally:
        os._exit(0)
theirs.close()
names, kids, out = {}, {}, []

def name(pid):
    return names.setdefault(pid, f"P{len(names)}")

def recv():
    if not select.select([ours], [], [], 20)[0]:
        return ["timeout"]
    data, anc, _, _ = ours.recvmsg(16, socket.CMSG_SPACE(3 * 4))
    fds = [int.from_bytes(p[i:i + 4], sys.byteorder) for _, _, p in anc for i in range(0, len(p), 4)]
    if not data:
        return ["EOF"]
    if data[:1] == b"c":
        pid = int.from_bytes(data[1:5], "little")
        kids[pid] = fds
        line = b""
        while not line.endswith(b"\n"):
            line += os.read(fds[1], 4096)
        return ["c", name(pid), len(data), len(fds), json.loads(line)]
    if data[:1] == b"x":
        return ["x", name(int.from_bytes(data[1:5], "little")), int.from_bytes(data[5:9], "little"), len(data)]
    return [data.decode(), len(fds)]

def step(what, send=None, n=1):
    if send is not None:
        ours.send(send)
    got = [recv() for _ in range(n)]
    # (exits seen in one turn: their order is the kernel's)
    out.append([what, sorted(got[:-1]) + got[-1:] if n > 1 else got])

def end(pid, code):
    job_w, msg_r, out_r = kids.pop(pid)
    os.write(job_w, bytes([code]))
    for fd in (job_w, msg_r, out_r):
        os.close(fd)

try:
    step("f (Python loop)", b"f")
    step("f (C loop from here)", b"f")
    step("p", b"p")
    for code, pid in zip((7, 0), sorted(kids)):
        end(pid, code)
        step(f"exit {code}")
    ours.send(b"ff")
    ours.send(b"z")
    step("p after ff, z", b"p")
    step("r", b"r")
    for i in range(20):
        step(f"f #{i}", b"f")
    step("p with 20 children", b"p")
    for pid in list(kids):
        end(pid, 1)
    time.sleep(0.5)
    step("20 exits, p", b"p", 21)
finally:
    ours.close()
    out.append(["server status", os.waitpid(server, 0)[1]])
    print("TRANSCRIPT " + json.dumps(out))
`;

async function transcript(docker: Docker, image: string, walls: string): Promise<unknown[]> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['/usr/bin/python3'],
    Cmd: ['-I', '-c', SCRIPT],
    Env: [`TOOLSMITH_TEST_WALLS=${walls}`],
    User: '65534:65534',
    HostConfig: { ...hostConfig(TEST_LIMITS), LogConfig: { Type: 'json-file', Config: {} } },
  });
  try {
    await c.start();
    await c.wait();
    const logs = (await c.logs({ stdout: true, stderr: true })).toString('latin1');
    const line = logs.split('\n').find((l) => l.includes('TRANSCRIPT '));
    if (!line) throw new Error(`no transcript: ${logs}`);
    return JSON.parse(line.slice(line.indexOf('TRANSCRIPT ') + 11)) as unknown[];
  } finally {
    await c.remove({ force: true });
  }
}

describe("the fork server's protocol, C loop against Python loop", () => {
  it('gives the same transcript, with more children alive than the C loop holds', async () => {
    const docker = new Docker();
    await requireDocker(docker);
    const image = await buildImage(docker, 'python', imagePaths());
    const py = await transcript(docker, image, 'noforkloop');
    const c = await transcript(docker, image, '');
    expect(py.at(-1)).toEqual(['server status', 0]);
    expect(py).toHaveLength(30);
    expect(c).toEqual(py);
  }, 180_000);
});
