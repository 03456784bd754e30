/**
 * The fork server's socket protocol (docs/protocol.md) driven directly, inside the python image with the sandbox's
 * HostConfig: the same script with the C loop and with the Python loop alone (`noforkloop`) must give the
 * same transcript (messages byte for byte, pids by order, the job process's fds, ids and walls), also with
 * more children alive at once than the C loop's arrays hold (TS_MAX_CHILDREN = 16: its TS_FULL fallback).
 * On runc and on gVisor, where there is no pidfd and the C loop watches the children through the fork
 * server's SIGCHLD pipe instead: there the C loop must be the one serving (the fork server has loaded
 * it), since every 2 MiB range the Python loop writes after a clone is copied whole (docs/scaling.md).
 */
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { GVISOR_PIDS, hostConfig } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { requireDocker, TEST_LIMITS } from '../../support/sandbox.ts';

const SCRIPT = String.raw`
import json, os, select, signal, socket, sys, time
signal.alarm(150)  # (a transcript that hangs ends its container before the test's own timeout: none left running)
sys.path.insert(0, "/opt/toolsmith")
from toolsmith_worker import forkserver, hygiene, jobns

def fake_child_main(child, job_r, msg_w, out_w, walls, describe=False):
    fds = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds[fd] = os.readlink(f"/proc/self/fd/{fd}").split(":")[0]
        except OSError:
            pass
    info = {"fds": sorted(fds.values()), "ids": [os.getresuid(), os.getresgid()], "walls": sorted(jobns.WALLS), "line": walls.decode()}
    # (whether the C loop made this process: the fork server's frame, as this copy of it holds it)
    info["c_loop"] = sys._getframe(2).f_locals.get("loop") is not None
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
            chunk = os.read(fds[1], 4096)
            if not chunk:
                return ["c", name(pid), len(data), len(fds), "ended without its line"]
            line += chunk
        return ["c", name(pid), len(data), len(fds), json.loads(line)]
    if data[:1] == b"x":
        return ["x", name(int.from_bytes(data[1:5], "little")), int.from_bytes(data[5:9], "little"), len(data)]
    return [data.decode(), len(fds)]

def step(what, send=None, n=1):
    if send is not None:
        ours.send(send)
    got = [recv() for _ in range(n)]
    # (exits seen in one turn: their order is the kernel's, and on a loaded machine a pong may come
    # before the last of them)
    out.append([what, sorted(got) if n > 1 else got])

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

/** The transcript, and which of its children the C loop made (taken out of it). */
async function transcript(
  docker: Docker,
  image: string,
  walls: string,
  runtime?: string,
): Promise<{ out: unknown[]; cLoop: boolean[] }> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['/usr/bin/python3'],
    Cmd: ['-I', '-c', SCRIPT],
    Env: [`TOOLSMITH_TEST_WALLS=${walls}`],
    User: '65534:65534',
    HostConfig: {
      // (gVisor: 20 children of a Python process, each holding its copies of the 2 MiB ranges it wrote,
      // and the sandbox kernel all count against the container's memory: 128 MB is not enough there)
      ...hostConfig(runtime ? { ...TEST_LIMITS, memoryMb: 1024 } : TEST_LIMITS),
      LogConfig: { Type: 'json-file', Config: {} },
      // (gVisor: the sandbox kernel's threads count in the container's pids limit, docker.ts; with 20
      // children alive they need more than a worker's GVISOR_PIDS)
      ...(runtime ? { Runtime: runtime, PidsLimit: TEST_LIMITS.pids + 10 * GVISOR_PIDS } : {}),
    },
  });
  try {
    await c.start();
    const status = (await c.wait()) as { StatusCode?: number };
    const logs = (await c.logs({ stdout: true, stderr: true })).toString('latin1');
    const line = logs.split('\n').find((l) => l.includes('TRANSCRIPT '));
    if (!line)
      throw new Error(
        `no transcript (exit ${status.StatusCode}): ${logs} ${JSON.stringify((await c.inspect()).State)}`,
      );
    const out = JSON.parse(line.slice(line.indexOf('TRANSCRIPT ') + 11)) as unknown[];
    const cLoop: boolean[] = [];
    const strip = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(strip);
      else if (v && typeof v === 'object' && 'c_loop' in v) {
        cLoop.push((v as { c_loop: boolean }).c_loop);
        delete (v as { c_loop?: boolean }).c_loop;
      }
    };
    strip(out);
    return { out, cLoop };
  } finally {
    await c.remove({ force: true });
  }
}

for (const [level, runtime] of [
  ['runc', undefined],
  ['gvisor', 'runsc'],
] as const) {
  describe(`the fork server's protocol, C loop against Python loop: ${level}`, () => {
    it('gives the same transcript, with more children alive than the C loop holds', async () => {
      const docker = new Docker();
      await requireDocker(docker);
      const image = await buildImage(docker, 'python', imagePaths());
      const py = await transcript(docker, image, 'noforkloop', runtime);
      const c = await transcript(docker, image, '', runtime);
      expect(py.out.at(-1)).toEqual(['server status', 0]);
      expect(py.out).toHaveLength(30);
      expect(c.out).toEqual(py.out);
      // 22 children: the first made by the Python loop, then the C loop's, but for the 17th to 20th
      // alive at once (more than it holds: the Python loop makes them)
      expect(py.cLoop).toEqual(Array<boolean>(22).fill(false));
      expect(c.cLoop.filter(Boolean).length).toBeGreaterThanOrEqual(16);
      expect(c.cLoop[0]).toBe(false);
      expect(c.cLoop[1]).toBe(true);
    }, 180_000);
  });
}
