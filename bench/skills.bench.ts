/**
 * `npm run bench:skills`: prints JSON. Needs the sandbox (Docker, else the process level).
 *
 * 1. A skill call's overhead inside a job: the same function called N times as a skill (defined ahead of
 *    the body) and as a plain function the body defines itself, timed by the script (time.perf_counter)
 *    in one job each, so container and protocol costs are out. A ratio near 1 is the goal. Nearly all of
 *    the N calls are past the job's bound of recorded skill calls (1000): only counted. `inJobRecorded`:
 *    1000 calls, each recorded (its start and end lines sent to the host). `jsInJob`: the same in a JS job
 *    (node worker), each call awaited, the skill against an async function the body defines; a JS skill
 *    call also tells the worker its caller's skill call to give back (the async context the tool calls
 *    are credited by: docs/skills.md, "How a skill runs").
 * 2. The host's cost per script: assembling and validating a body that calls a skill, against one that
 *    does not (median over repeats, same run).
 * 3. Tasks that share steps, with and without skills offered, over the same scripted model (a real HTTP
 *    server speaking the OpenAI API): attempts and prompt/answer tokens per case. Prompt tokens are
 *    estimated from the recorded prompt (characters / 4); answer tokens as the server reports them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSandboxManager } from '../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../src-main/app/service.ts';
import { assembleIn } from '../src-main/core/script/context.ts';
import { scriptToolNames } from '../src-main/core/script/context.ts';
import type { SkillTest } from '../src-main/core/skills/skill.ts';
import { estimateTokens } from '../src-main/core/tools/disclosure.ts';
import { startLlmServer } from '../test/support/llm-server.ts';
import { removeWorkspace, tempWorkspace } from '../test/support/workspace.ts';

const N = 200_000;
const ws = tempWorkspace('toolsmith-bench-skills-');
const llm = await startLlmServer();
const cfg = join(ws, '.toolsmith/config.toml');
writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('http://127.0.0.1:11434/v1', llm.openaiUrl));
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

try {
  const skills = svc.skills();
  const ADD = `def scaled(x: int, k: int) -> int:
    """x times k plus one.

    Args:
        x: A number.
        k: A factor.
    """
    return x * k + 1
`;
  const SPENT = `def spent_by(user_id: str) -> float:
    """What a customer spent over all their orders.

    Args:
        user_id: The customer's id (e.g. "u1").

    Returns:
        The sum of the totals of the customer's orders.
    """
    orders = get_orders().data
    return round(sum(o["total"] for o in orders if o["user_id"] == user_id), 2)
`;
  const saves: [string, string, SkillTest[]][] = [
    ['scaled', ADD, [{ args: { x: 2, k: 3 }, assert: [{ type: 'equals', value: 7 }] }]],
    ['spent_by', SPENT, [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 201 }] }]],
  ];
  for (const [name, source, tests] of saves) {
    const r = await skills.save({ sandbox: 'ecommerce', name, source, tests });
    if (!r.test.passed) throw new Error(`skill ${name} failed its tests: ${r.test.failures.join('; ')}`);
  }

  // 1. Overhead inside a job.
  const loop = (fn: string) =>
    `t0 = time.perf_counter()\nacc = 0\nfor i in range(${N}):\n    acc += ${fn}(x=i, k=3)\nemit_result({"ns": (time.perf_counter() - t0) * 1e9 / ${N}, "acc": acc})\n`;
  const local = `def local_scaled(x: int, k: int) -> int:\n    return x * k + 1\n\n${loop('local_scaled')}`;
  const runs = await svc.runs();
  const inJob: { skill: number[]; plain: number[] } = { skill: [], plain: [] };
  for (let i = 0; i < 5; i++) {
    for (const [kind, body] of [
      ['skill', loop('scaled')],
      ['plain', local],
    ] as const) {
      const o = await runs.runScript({ sandbox: 'ecommerce', body });
      if (o.status !== 'succeeded') throw new Error(`${kind}: ${o.error}`);
      inJob[kind].push((o.result as { ns: number }).ns);
    }
  }

  // 1b. The same for calls that are all recorded (each sends its start and end lines to the host): as
  // many as the job's bound of recorded calls (limits.tool_calls, 1000); the 200,000 above are nearly all
  // past it, only counted.
  const RECORDED = 1000;
  const loopOf = (fn: string, n: number) =>
    `t0 = time.perf_counter()\nacc = 0\nfor i in range(${n}):\n    acc += ${fn}(x=i, k=3)\nemit_result({"ns": (time.perf_counter() - t0) * 1e9 / ${n}, "acc": acc})\n`;
  const recorded: number[] = [];
  for (let i = 0; i < 5; i++) {
    const o = await runs.runScript({ sandbox: 'ecommerce', body: loopOf('scaled', RECORDED) });
    if (o.status !== 'succeeded') throw new Error(`recorded: ${o.error}`);
    recorded.push((o.result as { ns: number }).ns);
  }

  // 1c. The same in a JS job: N calls (nearly all past the bound, counted), then RECORDED calls (recorded).
  const SCALED_JS = `/**
 * x times k plus one.
 * @param {number} x A number.
 * @param {number} k A factor.
 * @returns x times k plus one.
 */
async function scaled_js(x, k) {
  return x * k + 1;
}
`;
  const js = await skills.save({
    sandbox: 'ecommerce',
    name: 'scaled_js',
    source: SCALED_JS,
    language: 'js',
    tests: [{ args: { x: 2, k: 3 }, assert: [{ type: 'equals', value: 7 }] }],
  });
  if (!js.test.passed) throw new Error(`skill scaled_js failed its tests: ${js.test.failures.join('; ')}`);
  const jsLoop = (fn: string, n: number) =>
    `const t0 = Date.now();\nlet acc = 0;\nfor (let i = 0; i < ${n}; i++) acc += await ${fn}(i, 3);\nemitResult({ ns: ((Date.now() - t0) * 1e6) / ${n}, acc });\n`;
  const jsLocal = (n: number) =>
    `async function local_scaled(x, k) {\n  return x * k + 1;\n}\n${jsLoop('local_scaled', n)}`;
  const jsInJob: { skill: number[]; plain: number[]; recorded: number[] } = {
    skill: [],
    plain: [],
    recorded: [],
  };
  for (let i = 0; i < 5; i++) {
    for (const [kind, body] of [
      ['skill', jsLoop('scaled_js', N)],
      ['plain', jsLocal(N)],
      ['recorded', jsLoop('scaled_js', RECORDED)],
    ] as const) {
      const o = await runs.runScript({ sandbox: 'ecommerce', language: 'js', body });
      if (o.status !== 'succeeded') throw new Error(`js ${kind}: ${o.error}`);
      jsInJob[kind].push((o.result as { ns: number }).ns);
    }
  }

  // 2. Host cost per script: assemble + validate, with and without a skill named.
  const ctx = svc.execution.scriptContext('ecommerce', undefined, 'python');
  const host = (body: string) => {
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      const a = assembleIn(ctx, body);
      const v = svc.execution.validateCode(a.body, 'python', { tools: scriptToolNames(ctx) });
      if (!v.valid) throw new Error(JSON.stringify(v.violations));
      times.push(performance.now() - t0);
    }
    return Number(median(times).toFixed(3));
  };
  const hostMs = {
    withSkill: host('emit_result(spent_by(user_id="u1"))\n'),
    withoutSkill: host(
      'orders = get_orders().data\nemit_result(round(sum(o["total"] for o in orders if o["user_id"] == "u1"), 2))\n',
    ),
  };

  // 3. Tasks sharing steps, with and without skills, over the same scripted model.
  const users = ['u1', 'u2', 'u3', 'u4'];
  const tasks = users.map((u) => `How much did customer ${u} spend, and what is their name?`);
  const inline = (u: string) =>
    `\`\`\`python\norders = get_orders().data\nmine = [o for o in orders if o["user_id"] == "${u}"]\nspent = round(sum(o["total"] for o in mine), 2)\nuser = get_user(user_id="${u}")\nemit_result({"name": user.data["name"], "spent": spent})\n\`\`\``;
  const withSkill = (u: string) =>
    `\`\`\`python\nuser = get_user(user_id="${u}")\nemit_result({"name": user.data["name"], "spent": spent_by(user_id="${u}")})\n\`\`\``;
  const arm = async (offered: boolean) => {
    if (!offered) skills.delete('ecommerce', 'spent_by');
    const out = [];
    for (const [i, task] of tasks.entries()) {
      const u = users[i] as string;
      llm.reset();
      llm.push(offered ? withSkill(u) : inline(u));
      const { done } = await runs.start({
        task,
        sandbox: 'ecommerce',
        providers: svc.settings.providersFor({}),
        noTemplates: true,
      });
      const o = await done;
      const rec = runs.get(o.runId);
      const prompt = rec.attempts.reduce(
        (n, a) => n + (a.prompt ? estimateTokens(`${a.prompt.system}${a.prompt.user}`) : 0),
        0,
      );
      out.push({
        task,
        status: o.status,
        attempts: rec.attempts.length,
        promptTokens: prompt,
        answerTokens: rec.tokens.completion,
        toolCalls: rec.attempts.reduce((n, a) => n + a.toolCalls.length, 0),
        skillCalls: rec.attempts.reduce((n, a) => n + a.toolCalls.filter((t) => t.skill).length, 0),
      });
    }
    return out;
  };
  const withSkills = await arm(true);
  const withoutSkills = await arm(false);
  const sum = (xs: { promptTokens: number; answerTokens: number; attempts: number }[]) => ({
    attempts: xs.reduce((n, x) => n + x.attempts, 0),
    promptTokens: xs.reduce((n, x) => n + x.promptTokens, 0),
    answerTokens: xs.reduce((n, x) => n + x.answerTokens, 0),
  });

  const skillNs = median(inJob.skill);
  const plainNs = median(inJob.plain);
  process.stdout.write(
    JSON.stringify(
      {
        bench: 'skills',
        calls: N,
        inJob: {
          skillNsPerCall: Number(skillNs.toFixed(1)),
          plainNsPerCall: Number(plainNs.toFixed(1)),
          ratio: Number((skillNs / plainNs).toFixed(3)),
          samples: inJob,
        },
        inJobRecorded: {
          calls: RECORDED,
          skillNsPerCall: Number(median(recorded).toFixed(1)),
          samples: recorded,
        },
        jsInJob: {
          skillNsPerCall: Number(median(jsInJob.skill).toFixed(1)),
          plainNsPerCall: Number(median(jsInJob.plain).toFixed(1)),
          ratio: Number((median(jsInJob.skill) / median(jsInJob.plain)).toFixed(3)),
          recordedNsPerCall: Number(median(jsInJob.recorded).toFixed(1)),
          samples: jsInJob,
        },
        hostMsPerScript: hostMs,
        sharedSteps: {
          model: 'scripted (OpenAI API over HTTP): inline steps without skills, the skill call with them',
          promptTokens: 'estimated: characters / 4 of the recorded prompt',
          withSkills: { cases: withSkills, total: sum(withSkills) },
          withoutSkills: { cases: withoutSkills, total: sum(withoutSkills) },
        },
      },
      null,
      2,
    ) + '\n',
  );
} finally {
  await svc.close();
  await llm.close();
  removeWorkspace(ws);
}
