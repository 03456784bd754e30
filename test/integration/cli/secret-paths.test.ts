/**
 * Where a secret can go, tried as the attacker would: a sandbox tool that holds a credential puts it in a
 * URL (percent-encoded, as a URL must) and in JSON text inside JSON text (an API's body echoing the
 * request); an upstream MCP server's tool quotes its token in its error. Each value then rides a script's
 * error into the retry prompt, an INTERACTIVE step's context, the run store, its export, the OTLP trace,
 * the CLI's output and an MCP client's answer. A real scripted LLM server, real containers, the CLI as a
 * process, a real OTLP receiver, the MCP server over stdio with the official SDK client.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { PushEvent } from '../../../src-main/contract/api.ts';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../../support/mcp-stdio.ts';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import type { OtlpReceiver } from '../../support/otlp-receiver.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { fence } from '../../support/suite-oracle.ts';
import { repoRoot } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';

const fx = useScriptedWorkspace({ docker: true, eachTest: () => {} });
// A key holding characters that URLs and JSON escape. `Za8` is in no other text of a run: wherever the
// key went whole, in any encoding the redactor misses, `Za8` is there.
const KEY = 'vk-Q9+x/Za8=Wp"Lm\\Rt7';
const MARK = 'Za8';
const UPSTREAM = 'ghp-upstream-7f3a9c1e5d';
const env = { QA_VAULT_KEY: KEY, QA_UPSTREAM_TOKEN: UPSTREAM };
let otlp: OtlpReceiver;

const TOOLS = `"""Tools that hold the vault's key."""
import json
import os
from urllib.parse import quote


def _key():
    return os.environ["TOOLSMITH_CRED_VAULT_KEY"]


@tool(grade=(1, 0))
def sign_request(path: str) -> ToolResponse:
    """A signed URL for path: the key in its query, percent-encoded as a URL must.

    Args:
        path: The API path.
    """
    return ToolResponse(success=True, data={"url": "https://api.vault.test" + path + "?key=" + quote(_key(), safe="")})


@tool(grade=(1, 0))
def call_api(path: str) -> ToolResponse:
    """The API's answer: a JSON text body echoing the request as JSON text.

    Args:
        path: The API path.
    """
    request = json.dumps({"path": path, "auth": _key()})
    return ToolResponse(success=True, data={"status": 403, "body": json.dumps({"error": "forbidden", "request": request})})


@tool(grade=(1, 0))
def account(name: str) -> ToolResponse:
    """The account the key opens (raises KeyError(key), as a dict look-up by key does).

    Args:
        name: The account's name.
    """
    return ToolResponse(success=True, data={}[_key()])


@tool(grade=(1, 1))
def post_message(text: str) -> ToolResponse:
    """Posts a message (a person approves each call).

    Args:
        text: The message.
    """
    return ToolResponse(success=True, data={"posted": len(text)})
`;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  mkdirSync(join(fx.ws, 'sandboxes/vault'));
  writeFileSync(join(fx.ws, 'sandboxes/vault/tools.py'), TOOLS);
  appendFileSync(
    join(fx.ws, '.toolsmith/config.toml'),
    `
[mcp_servers.tokens]
command = ${JSON.stringify(nodeBin)}
args = [${JSON.stringify(join(repoRoot, 'test/fixtures/mcp/token-echo-server.mjs'))}]
env = { UPSTREAM_TOKEN = "env:QA_UPSTREAM_TOKEN" }
timeout_ms = 20000

[sandboxes.vault]
description = "Holds the vault's key."
credentials = { vault_key = "env:QA_VAULT_KEY" }

[sandboxes.vault.mcp.tokens]

[approval]
tools = ["vault.post_message"]

[telemetry]
enabled = true
endpoint = "${otlp.base}"
`,
  );
});
afterAll(async () => otlp?.close());

/** Runs the task through the CLI; the run's JSON and what the CLI printed. */
async function run(args: string[]): Promise<{ id: string; out: string; err: string }> {
  const r = await cliProcess(
    fx.ws,
    fx.data,
    ['run', 'Fetch the items', '--sandbox', 'vault', '--json', ...args],
    env,
  ).done;
  expect(r.code, r.err).toBe(0);
  return { id: (JSON.parse(r.out) as { id: string }).id, out: r.out, err: r.err };
}

/** Everything that left the process or was kept about run `id`: export, trace, and the CLI's output. */
async function everywhere(id: string, printed: string): Promise<Record<string, string>> {
  const exported = await cliProcess(fx.ws, fx.data, ['runs', 'export', id], env).done;
  expect(exported.code, exported.err).toBe(0);
  return {
    cli: printed,
    export: exported.out,
    otlp: otlp.requests.map((r) => r.body.toString()).join('\n'),
  };
}

const LEAKY = [
  'u = sign_request(path="/v1/items")',
  'a = call_api(path="/v1/items")',
  'if a.data["status"] == 403:',
  '    raise RuntimeError("GET " + u.data["url"] + " failed: " + a.data["body"])',
  'emit_result(a.data)',
].join('\n');

describe('a credential in a URL and in nested JSON text', () => {
  it("reaches neither the LLM's retry prompt nor the store, export, trace or CLI output", async () => {
    fx.llm.push(fence(LEAKY), fence('emit_result(1)'));
    const r = await run(['--max-retries', '1']);
    expect(fx.llm.requests).toHaveLength(2);
    const retry = JSON.stringify(fx.llm.requests[1]!.body);
    // The error came back to the LLM, the key blanked in both forms.
    expect(retry).toContain('?key=***');
    expect(retry).toContain('forbidden');
    expect(retry).not.toContain(MARK);
    for (const [where, text] of Object.entries(await everywhere(r.id, r.out))) {
      expect(text, where).toContain('forbidden');
      expect(text.includes(MARK), `${where} holds the key`).toBe(false);
    }
  }, 240_000);

  it("reaches no INTERACTIVE step's context sent to the LLM", async () => {
    fx.llm.push(
      fence(
        'u = sign_request(path="/v1/items")\na = call_api(path="/v1/items")\nemit_intermediate({"url": u.data["url"], "api": a.data})',
      ),
      fence('emit_result("done")'),
    );
    const r = await run(['--mode', 'interactive', '--max-steps', '2']);
    expect(fx.llm.requests).toHaveLength(2);
    const step2 = JSON.stringify(fx.llm.requests[1]!.body);
    expect(step2).toContain('?key=***');
    expect(step2).toContain('forbidden');
    expect(step2).not.toContain(MARK);
    expect(r.out).not.toContain(MARK);
  }, 240_000);
});

describe("a credential in Python's repr (a KeyError's message)", () => {
  it('reaches neither the retry prompt nor the record', async () => {
    fx.llm.push(fence('a = account(name="main")\nemit_result(a.data)'), fence('emit_result(1)'));
    const r = await run(['--max-retries', '1']);
    expect(fx.llm.requests).toHaveLength(2);
    const retry = JSON.stringify(fx.llm.requests[1]!.body);
    expect(retry).toContain("KeyError: '***'");
    expect(retry).not.toContain(MARK);
    for (const [where, text] of Object.entries(await everywhere(r.id, r.out))) {
      expect(text, where).toContain('KeyError');
      expect(text.includes(MARK), `${where} holds the key`).toBe(false);
    }
  }, 240_000);
});

describe("an upstream MCP server's token quoted in its tool's error", () => {
  it('is not sent to the LLM in the retry prompt (nor stored)', async () => {
    fx.llm.push(
      fence('r = whoami()\nif not r.success:\n    raise RuntimeError(r.message)\nemit_result(r.data)'),
      fence('emit_result(1)'),
    );
    const r = await run(['--max-retries', '1']);
    expect(fx.llm.requests).toHaveLength(2);
    const retry = JSON.stringify(fx.llm.requests[1]!.body);
    expect(retry).toContain('401 Unauthorized: bad credentials [redacted]');
    expect(retry).not.toContain(UPSTREAM);
    const { export: exported } = await everywhere(r.id, r.out);
    expect(exported).toContain('bad credentials');
    expect(exported).not.toContain(UPSTREAM);
  }, 240_000);

  it('is not in the progress relayed to an MCP client', async () => {
    let client: Client | undefined;
    try {
      client = await connectMcp(fx.ws, 'secret-paths-progress', {
        ...process.env,
        TOOLSMITH_DATA_DIR: fx.data,
        ...env,
      });
      const heard: Progress[] = [];
      await client.callTool(
        { name: 'code', arguments: { sandbox: 'vault', code: 'w = whoami()\nemit_result(w.success)' } },
        undefined,
        { timeout: 180_000, onprogress: (p) => heard.push(p) },
      );
      const relayed = JSON.stringify(heard);
      expect(relayed).toContain('whoami: trying [redacted]');
      expect(relayed).not.toContain(UPSTREAM);
    } finally {
      await client?.close();
    }
  }, 240_000);

  it("is not in execute_code's answer to an MCP client, nor is the vault's key in any form", async () => {
    let client: Client | undefined;
    try {
      client = await connectMcp(fx.ws, 'secret-paths', {
        ...process.env,
        TOOLSMITH_DATA_DIR: fx.data,
        ...env,
      });
      const answer = await client.callTool(
        {
          name: 'execute_code',
          arguments: {
            sandbox: 'vault',
            code: 'w = whoami()\nu = sign_request(path="/x")\na = call_api(path="/x")\nemit_result({"who": w.message, "url": u.data["url"], "api": a.data})',
          },
        },
        undefined,
        { timeout: 180_000 },
      );
      const text = JSON.stringify(answer);
      expect(text).toContain('bad credentials');
      expect(text).toContain('?key=***');
      expect(text).toContain('forbidden');
      expect(text).not.toContain(UPSTREAM);
      expect(text).not.toContain(MARK);
    } finally {
      await client?.close();
    }
  }, 240_000);
});

describe('arguments of a call that waits for a person', () => {
  it("an MCP client's approval question shows a credential the script passed as ***", async () => {
    const asked: string[] = [];
    let client: Client | undefined;
    try {
      client = await connectMcp(
        fx.ws,
        'secret-paths-approval',
        { ...process.env, TOOLSMITH_DATA_DIR: fx.data, ...env },
        (message) => {
          asked.push(message);
          return { action: 'accept', content: { approve: true } };
        },
      );
      const answer = await client.callTool(
        {
          name: 'execute_code',
          arguments: {
            sandbox: 'vault',
            code: 'u = sign_request(path="/x")\nr = post_message(text="key " + credential("vault_key") + " at " + u.data["url"])\nemit_result(r.data)',
          },
        },
        undefined,
        { timeout: 180_000 },
      );
      expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('Allow the script to call post_message in sandbox vault');
      expect(asked[0]).toContain('"text": "key *** at https://api.vault.test/x?key=***"');
      expect(asked[0]).not.toContain(MARK);
    } finally {
      await client?.close();
    }
  }, 240_000);

  it("the workbench's approval request (pushed to the page) holds no upstream token", async () => {
    const before = { ...process.env };
    Object.assign(process.env, env);
    let svc: ToolsmithService | undefined;
    try {
      svc = ToolsmithService.open(fx.ws, { sandboxFactory: createSandboxManager, askApproval: 'workbench' });
      const pushed: PushEvent[] = [];
      svc.onPush((e) => {
        pushed.push(e);
        if (e.type === 'approval_request') svc!.approvals.answer(e.request.id, true);
      });
      await svc.prepareMcp('vault');
      const r = await svc.execution.executeScript({
        sandbox: 'vault',
        language: 'python',
        body: 'w = whoami()\nr = post_message(text="it said: " + w.message)\nemit_result(r.data)\n',
        timeoutMs: 60_000,
      });
      expect(r.success, JSON.stringify(r.error)).toBe(true);
      const requests = pushed.filter((e) => e.type === 'approval_request');
      expect(requests).toHaveLength(1);
      const shown = JSON.stringify(requests[0]);
      expect(shown).toContain('it said: 401 Unauthorized: bad credentials [redacted]');
      expect(shown).not.toContain(UPSTREAM);
    } finally {
      await svc?.close();
      for (const k of Object.keys(env)) if (!(k in before)) delete process.env[k];
    }
  }, 240_000);
});

describe('the workbench', () => {
  it('a tool tried from the Workspace or Connections view shows no upstream token', async () => {
    const before = { ...process.env };
    Object.assign(process.env, env);
    let svc: ToolsmithService | undefined;
    try {
      svc = ToolsmithService.open(fx.ws, { sandboxFactory: createSandboxManager });
      const r = await dispatch(svc, 'tools.call', { sandbox: 'vault', tool: 'whoami', args: {} });
      const shown = JSON.stringify(r);
      expect(shown).toContain('401 Unauthorized: bad credentials [redacted]');
      expect(shown).not.toContain(UPSTREAM);
      const signed = await dispatch(svc, 'tools.call', {
        sandbox: 'vault',
        tool: 'call_api',
        args: { path: '/x' },
      });
      expect(JSON.stringify(signed)).toContain('forbidden');
      expect(JSON.stringify(signed)).not.toContain(MARK);
    } finally {
      await svc?.close();
      for (const k of Object.keys(env)) if (!(k in before)) delete process.env[k];
    }
  }, 240_000);
});
