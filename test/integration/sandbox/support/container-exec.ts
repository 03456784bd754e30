/**
 * A command run inside a sandbox's container from the host (docker exec), for tests that look at or act
 * on a worker's processes from beside it: its stdout as text (the attached stream's 8-byte frame headers
 * dropped, stderr left out).
 */
import Docker from 'dockerode';
import { POLL_MS } from '../../../support/budgets.ts';

const docker = new Docker();

/** The command's stdout and stderr, each as text. */
export async function execOut(
  id: string,
  cmd: string[],
  user?: string,
): Promise<{ out: string; err: string }> {
  const exec = await docker
    .getContainer(id)
    .exec({ Cmd: cmd, ...(user ? { User: user } : {}), AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  let out = '';
  let err = '';
  const all = Buffer.concat(chunks);
  for (let at = 0; at + 8 <= all.length;) {
    const n = all.readUInt32BE(at + 4);
    if (all[at] === 1) out += all.toString('utf8', at + 8, at + 8 + n);
    else err += all.toString('utf8', at + 8, at + 8 + n);
    at += 8 + n;
  }
  return { out, err };
}

export const execIn = async (id: string, cmd: string[], user?: string): Promise<string> =>
  (await execOut(id, cmd, user)).out;

/** JS `code` run by the container's own `runtime` (node, bun or deno) inside it; its stdout. */
export const jsIn = (id: string, runtime: string, code: string): Promise<string> =>
  execIn(id, [`/usr/local/bin/${runtime}`, runtime === 'deno' ? 'eval' : '-e', code]);

/** Polls `get` every 20 ms until it gives a value; fails naming `what` after POLL_MS. */
export async function until<T>(what: string, get: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const end = Date.now() + POLL_MS;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Sends `sig` to the JS job processes inside the container (the children of `jobns-launch`: the running
 * job's and the one waiting for the next job), found there by the container's own `runtime`; their pids,
 * written before any is signalled: a job's process killed makes its worker sweep the container, which
 * ends this command too (seen under load: nothing printed). Anything else that fails in there is thrown
 * with its message, not lost with the command's stderr.
 */
export async function signalLaunched(id: string, runtime: string, sig: string): Promise<number[]> {
  const { out, err } = await execOut(id, [
    `/usr/local/bin/${runtime}`,
    runtime === 'deno' ? 'eval' : '-e',
    `try {
const fs = process.getBuiltinModule('node:fs');
const comm = (p) => { try { return fs.readFileSync('/proc/' + p + '/comm', 'utf8').trim(); } catch { return ''; } };
const ppid = (p) => { try { const s = fs.readFileSync('/proc/' + p + '/stat', 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]); } catch { return 0; } };
const hit = fs.readdirSync('/proc').filter((d) => /^\\d+$/.test(d)).map(Number).filter((p) => comm(ppid(p)) === 'jobns-launch');
fs.writeSync(1, JSON.stringify({ sent: hit }) + '\\n');
for (const p of hit) { try { process.kill(p, ${JSON.stringify(sig)}); } catch (e) { if (e.code !== 'ESRCH') throw e; } }
} catch (e) { console.log(JSON.stringify({ error: String(e) })); }`,
  ]);
  let r: { sent?: number[]; error?: string } = {};
  try {
    r = JSON.parse(out.trim().split('\n').pop() || '{}') as typeof r;
  } catch {
    /* (named below with what it printed) */
  }
  if (!r.sent)
    throw new Error(
      `signalling the job processes in ${id} failed: ${r.error ?? JSON.stringify({ out, err })}`,
    );
  return r.sent;
}
