/**
 * Egress for tool code (docs/sandboxes.md): a sandbox with `[sandboxes.S.egress] allow = [...]` runs its
 * tools in containers whose only way out is the host's proxy; scripts run where they always do, without
 * any network. Loopback HTTP servers started here are the outside world.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager, imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { ProcessWorkerFactory } from '../../../src-main/infra/sandbox/process.ts';
import { PROTOCOL_MOUNT, PROTOCOL_SOCKET_ENV } from '../../../src-main/infra/sandbox/protocol-socket.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const TOOLS = `import http.client
import os
import socket
import ssl
import urllib.request


@tool(grade=(2, 0))
def get_url(url: str) -> ToolResponse:
    """Fetch a URL (through the proxy the environment names).

    Args:
        url: The URL.
    """
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return ToolResponse(success=True, data={"status": r.status, "body": r.read().decode()})
    except Exception as e:  # noqa: BLE001
        return ToolResponse(success=False, message=f"{type(e).__name__}: {e}")


@tool(grade=(2, 0))
def tunnel(host: str, port: int, path: str, tls: bool = True) -> ToolResponse:
    """GET through a CONNECT tunnel of the proxy (HTTPS, or plain HTTP inside the tunnel).

    Args:
        host: Destination host.
        port: Destination port.
        path: The path.
        tls: Speak TLS inside the tunnel (the test's certificate is self-signed: not verified).
    """
    try:
        if tls:
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            c = http.client.HTTPSConnection("127.0.0.1", 3128, timeout=10, context=ctx)
        else:
            c = http.client.HTTPConnection("127.0.0.1", 3128, timeout=10)
        c.set_tunnel(host, port)
        c.request("GET", path)
        r = c.getresponse()
        return ToolResponse(success=True, data={"status": r.status, "body": r.read().decode()})
    except Exception as e:  # noqa: BLE001
        return ToolResponse(success=False, message=f"{type(e).__name__}: {e}")


@tool(grade=(2, 0))
def egress_mounts() -> ToolResponse:
    """The lines of /proc/self/mountinfo that name the egress proxy's folder (a host path)."""
    with open("/proc/self/mountinfo") as f:
        lines = [line for line in f.read().splitlines() if "toolsmith-egress" in line]
    return ToolResponse(success=True, data=lines)


@tool(grade=(2, 0))
def shut_listeners() -> ToolResponse:
    """Every listening socket among this job's descriptors (the worker's egress relay's listener, once
    inherited by every job) shut down, and how many there were."""
    shut = []
    for name in os.listdir("/proc/self/fd"):
        try:
            s = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue
        try:
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
                s.shutdown(socket.SHUT_RDWR)
                shut.append(name)
        except OSError:
            pass
        finally:
            s.close()
    return ToolResponse(success=True, data=shut)


@tool(grade=(2, 0))
def direct(host: str, port: int) -> ToolResponse:
    """Connect without the proxy.

    Args:
        host: Host.
        port: Port.
    """
    try:
        socket.create_connection((host, port), timeout=3).close()
        return ToolResponse(success=True, data="connected")
    except Exception as e:  # noqa: BLE001
        return ToolResponse(success=False, message=f"{type(e).__name__}: {e}")
`;

const docker = new Docker();
let ws: string;
let svc: ToolsmithService;
let allowed: Server;
let allowedTls: Server;
let allowedTlsPort: number;
let denied: Server;
let allowedPort: number;
let deniedPort: number;
let deniedHits = 0;
/** Every path the allowed (plain HTTP) server was asked for. */
const allowedUrls: string[] = [];
let gateway = '';

function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer(handler);
    // on every interface: a container with any network route to the host could reach it directly
    s.listen(0, '0.0.0.0', () => resolve(s));
  });
}
const port = (s: Server) => (s.address() as AddressInfo).port;

beforeAll(async () => {
  allowed = await listen((req, res) => {
    allowedUrls.push(req.url ?? '');
    res.end(`hello from ${req.url}`);
  });
  denied = await listen((_req, res) => {
    deniedHits++;
    res.end('should never be reached');
  });
  const tlsFiles = fileURLToPath(new URL('../../fixtures/tls/', import.meta.url));
  allowedTls = createHttpsServer(
    { cert: readFileSync(join(tlsFiles, 'cert.pem')), key: readFileSync(join(tlsFiles, 'key.pem')) },
    (req, res) => res.end(`hello from ${req.url}`),
  );
  await new Promise<void>((r) => allowedTls.listen(0, '0.0.0.0', r));
  allowedTlsPort = port(allowedTls);
  allowedPort = port(allowed);
  deniedPort = port(denied);
  const bridge = await docker.getNetwork('bridge').inspect();
  gateway =
    (bridge as { IPAM?: { Config?: { Gateway?: string }[] } }).IPAM?.Config?.[0]?.Gateway ?? '172.17.0.1';
  ws = tempWorkspace();
  mkdirSync(join(ws, 'sandboxes', 'web'));
  writeFileSync(join(ws, 'sandboxes', 'web', 'tools.py'), TOOLS);
  appendFileSync(
    join(ws, '.toolsmith', 'config.toml'),
    `\n[sandboxes.web]\ndescription = "egress test"\n[sandboxes.web.egress]\nallow = ["127.0.0.1:${allowedPort}", "127.0.0.1:${allowedTlsPort}"]\n`,
  );
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
}, 60_000);

afterAll(async () => {
  await svc?.close();
  allowed?.close();
  allowedTls?.close();
  denied?.close();
  if (ws) removeWorkspace(ws);
});

const run = (body: string, language: 'python' | 'js' = 'python') =>
  svc.execution.executeScript({ sandbox: 'web', language, body });

describe('egress for tool code', () => {
  it('an allowed host answers through the proxy, and the request is in the trace', async () => {
    const r = await run(`r = get_url(url="http://127.0.0.1:${allowedPort}/hello")\nemit_result(r.data)\n`);
    expect(r.error).toBeUndefined();
    expect(r.data).toEqual({ status: 200, body: 'hello from /hello' });
    expect(r.toolCalls).toHaveLength(1);
    const [e] = r.toolCalls[0]?.egress ?? [];
    expect(e).toMatchObject({
      host: '127.0.0.1',
      port: allowedPort,
      method: 'GET',
      allowed: true,
      status: 200,
    });
    expect(e?.bytesOut).toBeGreaterThan(0);
    expect(e?.bytesIn).toBeGreaterThan('hello from /hello'.length);
    expect(e?.ms).toBeGreaterThan(0);
    expect(e?.open).toBeUndefined();
  }, 180_000);

  it('CONNECT tunnels carry TLS to an allowed host and are traced; plain HTTP inside a tunnel is refused', async () => {
    const r = await run(
      `r = tunnel(host="127.0.0.1", port=${allowedTlsPort}, path="/t")\nemit_result(r.data)\n`,
    );
    expect(r.data).toEqual({ status: 200, body: 'hello from /t' });
    expect(r.toolCalls[0]?.egress?.[0]).toMatchObject({
      method: 'CONNECT',
      allowed: true,
      port: allowedTlsPort,
    });
    const plain = await run(
      `r = tunnel(host="127.0.0.1", port=${allowedPort}, path="/t", tls=False)\nemit_result(r.success)\n`,
    );
    expect(plain.data).toBe(false);
    expect(plain.toolCalls[0]?.egress?.[0]).toMatchObject({ method: 'CONNECT', allowed: false, status: 403 });
    expect(plain.toolCalls[0]?.egress?.[0]?.error).toMatch(/does not start with a TLS handshake/);
  }, 60_000);

  it('a host outside the allow-list is refused by the proxy and traced as denied', async () => {
    const r = await run(
      `r = get_url(url="http://127.0.0.1:${deniedPort}/x")\nemit_result({"ok": r.success, "message": r.message})\n`,
    );
    expect(r.data).toMatchObject({ ok: false });
    expect(String((r.data as { message: string }).message)).toMatch(/403/);
    expect(r.toolCalls[0]?.egress?.[0]).toMatchObject({
      host: '127.0.0.1',
      port: deniedPort,
      method: 'GET',
      allowed: false,
      status: 403,
      bytesIn: 0,
    });
    const t = await run(
      `r = tunnel(host="127.0.0.1", port=${deniedPort}, path="/")\nemit_result(r.success)\n`,
    );
    expect(t.data).toBe(false);
    expect(t.toolCalls[0]?.egress?.[0]).toMatchObject({ method: 'CONNECT', allowed: false });
    expect(deniedHits).toBe(0);
  }, 60_000);

  it('tool code has no network besides the proxy: a direct connection to the host fails', async () => {
    const r = await run(
      `r = direct(host="${gateway}", port=${allowedPort})\nemit_result({"ok": r.success, "message": r.message})\n`,
    );
    expect(r.data).toMatchObject({ ok: false });
    expect(String((r.data as { message: string }).message)).toMatch(/unreachable|OSError|Errno/i);
  }, 60_000);

  it('script code runs in a container with no network, no proxy and no socket: not even the allowed host', async () => {
    await run('emit_result(1)\n');
    const mine = await docker.listContainers({
      filters: { label: ['toolsmith.sandbox=web', `toolsmith.owner=${process.pid}`] },
    });
    const inspected = await Promise.all(mine.map((c) => docker.getContainer(c.Id).inspect()));
    const isTools = (i: Docker.ContainerInspectInfo) => i.Config.Env.some((e) => e.startsWith('HTTP_PROXY='));
    const scripts = inspected.filter((i) => !isTools(i));
    const tools = inspected.filter(isTools);
    expect(scripts.length).toBeGreaterThan(0);
    expect(tools.length).toBeGreaterThan(0);
    for (const i of [...scripts, ...tools]) expect(i.HostConfig.NetworkMode).toBe('none');
    for (const i of scripts) {
      // Its one mount is the worker protocol's folder (infra/sandbox/protocol-socket.ts), whose socket
      // is gone once the worker connected: probed below with the others.
      const binds = i.HostConfig.Binds ?? [];
      expect(binds.filter((bind) => bind.split(':')[1] !== PROTOCOL_MOUNT)).toEqual([]);
      // Its host folder is in the script's mountinfo as the egress one is, but holds nothing to reach by
      // name: the socket went with the worker's connection.
      for (const bind of binds) expect(readdirSync(bind.split(':')[0]!)).toEqual([]);
      const protocolSocket =
        i.Config.Env.find((e) => e.startsWith(`${PROTOCOL_SOCKET_ENV}=`))?.slice(
          PROTOCOL_SOCKET_ENV.length + 1,
        ) ?? `${PROTOCOL_MOUNT}/none.sock`;
      // From inside the script container: the host (where the allowed server listens on every interface),
      // the proxy relay's port, the proxy's socket and the protocol's are all out of reach.
      const probe = `
import socket
out = []
for target in [("${gateway}", ${allowedPort}), ("127.0.0.1", 3128), ("127.0.0.1", ${allowedPort})]:
    try:
        socket.create_connection(target, timeout=2).close()
        out.append("connected")
    except OSError as e:
        out.append(type(e).__name__)
for path in ["/run/toolsmith-egress/proxy.sock", "${protocolSocket}"]:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        out.append("connected")
    except OSError as e:
        out.append(type(e).__name__)
print(" ".join(out))
`;
      // The worker sweeps its sandbox after each job's result is out (every process but its own is
      // killed: a wall), so a probe started right after the result may be ended by it with no output:
      // asked again then.
      let text = '';
      for (let attempt = 0; attempt < 5 && !text.trim(); attempt++)
        text = await execIn(i.Id, ['/usr/bin/python3', '-c', probe]);
      expect(text.trim().split(' ')).toHaveLength(5);
      expect(text).not.toMatch(/connected/);
    }
  }, 60_000);

  it("a run's record keeps the requests in its trace (rules tier: no LLM)", async () => {
    const runs = await svc.runs();
    const outcome = await (
      await runs.start({
        task: `get_url(url="http://127.0.0.1:${allowedPort}/run")`,
        sandbox: 'web',
        providers: [],
      })
    ).done;
    expect(outcome.status).toBe('succeeded');
    const calls = runs.get(outcome.runId).attempts.flatMap((a) => a.toolCalls);
    expect(calls.map((c) => c.name)).toEqual(['get_url']);
    expect(calls[0]?.egress?.[0]).toMatchObject({
      host: '127.0.0.1',
      port: allowedPort,
      method: 'GET',
      allowed: true,
      status: 200,
    });
  }, 60_000);

  it("tool code reads its proxy's host path in /proc/self/mountinfo; other users of the host given it still cannot use the proxy", async () => {
    const r = await run('emit_result(egress_mounts().data)\n');
    const lines = r.data as string[];
    // mountinfo: field 4 is the mount's root in its file system (the host folder), field 5 where it is.
    const root = lines.map((l) => l.split(' ')).find((f) => f[4] === '/run/toolsmith-egress')?.[3] ?? '';
    expect(root).toMatch(/toolsmith-egress-/);
    // (in $TMPDIR, or in /tmp when a long $TMPDIR leaves a socket's path no room: socket-folder.ts)
    const leaked = [
      root,
      ...[tmpdir(), '/tmp'].map((t) => join(t, root.slice(root.indexOf('toolsmith-egress-')))),
    ].find((p) => existsSync(join(p, 'proxy.sock')));
    expect(leaked).toBeDefined();
    const sock = join(leaked!, 'proxy.sock');
    expect(statSync(sock).isSocket()).toBe(true);
    // The tool container that mounts it, and its processes' host pids: /proc/PID/root is another way to
    // the same socket, for whoever the kernel lets read that link.
    const mine = await docker.listContainers({
      filters: { label: ['toolsmith.sandbox=web', `toolsmith.owner=${process.pid}`] },
    });
    const inspected = await Promise.all(mine.map((c) => docker.getContainer(c.Id).inspect()));
    const tool = inspected.find((i) => (i.HostConfig.Binds ?? []).some((b) => b.startsWith(`${leaked}:`)));
    expect(tool).toBeDefined();
    const top = (await docker.getContainer(tool!.Id).top({ ps_args: '-o pid' })) as {
      Processes?: string[][];
    };
    const pids = (top.Processes ?? []).map((p) => p[0]!);
    expect(pids.length).toBeGreaterThan(0);
    const paths = [sock, ...pids.map((pid) => `/proc/${pid}/root/run/toolsmith-egress/proxy.sock`)];
    const connect = [
      'import socket, sys',
      'for path in sys.argv[1:]:',
      '    s = socket.socket(socket.AF_UNIX)',
      '    s.settimeout(10)',
      '    try:',
      '        s.connect(path)',
      '        s.sendall(b"GET http://127.0.0.1:PORT/leaked HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")',
      '        print(path, "connected", s.recv(64))',
      '    except OSError as e:',
      '        print(path, type(e).__name__)',
    ]
      .join('\n')
      .replace('PORT', String(allowedPort));
    // Another user (12345), and 65534: the uid the container's user is on the host (nobody).
    for (const uid of [12345, 65534]) {
      const out = await asUser(uid, ['/usr/bin/python3', '-I', '-c', connect, ...paths]);
      expect(out.stderr).toBe('');
      const results = out.stdout.trim().split('\n');
      expect(results).toHaveLength(paths.length);
      // the host path: the 0700 folder above the mounted one; /proc/PID/root: the processes are not
      // dumpable (the worker) or have an empty folder there (a job's own mount namespace).
      expect(results[0]).toBe(`${sock} PermissionError`);
      for (const line of results) expect(line).not.toMatch(/connected/);
    }
    expect(allowedUrls.filter((u) => u.includes('leaked'))).toEqual([]);
    // The tool's own way still works.
    const ok = await run(`r = get_url(url="http://127.0.0.1:${allowedPort}/after")\nemit_result(r.data)\n`);
    expect(ok.data).toEqual({ status: 200, body: 'hello from /after' });
  }, 60_000);

  it("a job cannot shut the egress relay down for the jobs after it: the relay's listening socket is none of a job's descriptors", async () => {
    // (failed before: every job inherited the worker's listener; shut down by one job, every later
    // request of that tool container was refused: "Connection refused")
    const shut = await run('emit_result(shut_listeners().data)\n');
    expect(shut.error).toBeUndefined();
    expect(shut.data).toEqual([]);
    for (const path of ['/after-shut-1', '/after-shut-2']) {
      const r = await run(`r = get_url(url="http://127.0.0.1:${allowedPort}${path}")\nemit_result(r.data)\n`);
      expect(r.data).toEqual({ status: 200, body: `hello from ${path}` });
    }
  }, 60_000);

  it('a JS script calls the sandbox tool in the egress tool container too', async () => {
    const r = await run(
      `const r = await get_url({url: "http://127.0.0.1:${allowedPort}/js"});\nemitResult(r.data);\n`,
      'js',
    );
    expect(r.error).toBeUndefined();
    expect(r.data).toEqual({ status: 200, body: 'hello from /js' });
    expect(r.toolCalls[0]?.egress?.[0]).toMatchObject({ allowed: true, port: allowedPort });
  }, 120_000);
});

describe('egress without Docker', () => {
  it('the process fallback refuses a sandbox with egress instead of running its tools unconfined', async () => {
    const factory = new ProcessWorkerFactory({
      ...imagePaths(),
      memoryMb: 128,
      pids: 64,
      tmpfsMb: 8,
      noBubblewrap: true,
    });
    const b = new SandboxBackend({
      factory,
      pool: { minSize: 0, maxSize: 1, maxJobsPerWorker: 10, idleMs: 60_000, queueTimeoutMs: 10_000 },
      maxOutputBytes: 50 * 1024,
      specFor: (name, runtime) => ({
        name,
        runtime,
        toolsSource: TOOLS,
        hostTools: [],
        credentials: {},
        egress: { allow: ['127.0.0.1:80'] },
      }),
    });
    try {
      const r = await b.callTool('web', 'get_url', { url: 'http://127.0.0.1/' });
      expect(r.response).toBeUndefined();
      expect(r.result.exitReason).toBe('infra');
      expect(r.result.error?.message).toMatch(/egress, which is enforced only by the Docker backend/);
    } finally {
      await b.dispose();
    }
  }, 60_000);
});

/**
 * Runs a command as uid/gid `uid` on the host: asynchronously, since the proxy it may reach answers in
 * this very process.
 */
function asUser(uid: number, [cmd, ...args]: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd!, args, { uid, gid: uid, cwd: '/' });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', () => resolve({ stdout, stderr }));
  });
}

async function execIn(id: string, cmd: string[]): Promise<string> {
  const exec = await docker
    .getContainer(id)
    .exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, User: '65534:65534' });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  const { PassThrough } = await import('node:stream');
  const out = new PassThrough();
  out.on('data', (d: Buffer) => chunks.push(d));
  docker.modem.demuxStream(stream, out, out);
  await new Promise<void>((resolve) => stream.on('end', () => resolve()));
  return Buffer.concat(chunks).toString();
}
