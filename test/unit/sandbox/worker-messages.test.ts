/**
 * Worker lines are parsed once into one discriminated union (worker-messages.ts): known messages are
 * normalized as the host has always read them, anything else is ignored.
 */
import { describe, expect, it } from 'vitest';
import { parseWorkerLine } from '../../../src-main/infra/sandbox/worker-messages.ts';

describe('parseWorkerLine', () => {
  it('ignores lines that are not JSON objects of a known type', () => {
    for (const line of [
      '',
      'not json',
      '[1,2]',
      '42',
      'null',
      '"done"',
      '{}',
      '{"type":"nope","id":"x"}',
      '{"type":7}',
    ])
      expect(parseWorkerLine(line)).toBeUndefined();
  });

  it("ignores a worker's own message that carries a job's id (a job's line its worker relayed)", () => {
    for (const line of [
      '{"type":"hello","id":"j","protocol":1,"runtime":"python","version":"0"}',
      '{"type":"ready","id":"j","runtime":"python","version":"0","tools":[{"name":"forged"}]}',
      '{"type":"load_error","id":"j","error":{"type":"Forged","message":"x"}}',
      '{"type":"pong","id":"j","busy":false}',
      '{"type":"next_ready","id":"j","after":"j"}',
      '{"type":"next_ready","id":null,"after":null}',
      // (a job that could forge it would have itself sent again: the pool retries a job that never ran)
      '{"type":"stopping","id":"j","after":"i","reason":"forged"}',
    ])
      expect(parseWorkerLine(line), line).toBeUndefined();
    expect(parseWorkerLine('{"type":"stopping","after":"i","reason":"why"}')).toEqual({
      type: 'stopping',
      after: 'i',
      reason: 'why',
    });
    expect(parseWorkerLine('{"type":"next_ready","after":"j"}')).toEqual({ type: 'next_ready', after: 'j' });
    expect(parseWorkerLine('{"type":"pong","busy":true}')).toEqual({ type: 'pong', busy: true });
  });

  it('reads each message of docs/protocol.md', () => {
    expect(parseWorkerLine('{"type":"hello","protocol":1,"runtime":"python","version":"3.11.2"}')).toEqual({
      type: 'hello',
      protocol: 1,
      runtime: 'python',
      version: '3.11.2',
    });
    expect(
      parseWorkerLine(
        '{"type":"ready","protocol":1,"runtime":"python","version":"3.11.2","pid":7,"tools":[{"name":"add"}]}',
      ),
    ).toEqual({ type: 'ready', runtime: 'python', version: '3.11.2', tools: [{ name: 'add' }] });
    expect(parseWorkerLine('{"type":"emit","id":"j","kind":"result","data":{"a":[1]}}')).toEqual({
      type: 'emit',
      id: 'j',
      kind: 'result',
      data: { a: [1] },
    });
    expect(
      parseWorkerLine(
        '{"type":"trace","id":"j","name":"add","args":{"a":1},"ms":0.04,"location":"sandbox","result":{"success":true,"data":2}}',
      ),
    ).toEqual({
      type: 'trace',
      id: 'j',
      name: 'add',
      args: { a: 1 },
      ms: 0.04,
      location: 'sandbox',
      result: { success: true, data: 2 },
      refused: false,
    });
    expect(
      parseWorkerLine('{"type":"tool_call","id":"j","call_id":"c1","name":"w","alias":"w","args":{"c":"B"}}'),
    ).toEqual({
      type: 'tool_call',
      id: 'j',
      call_id: 'c1',
      name: 'w',
      alias: 'w',
      args: { c: 'B' },
      gate: false,
    });
    // A sandbox tool asking for approval: the gate flag and the script line (a positive integer only).
    expect(
      parseWorkerLine(
        '{"type":"tool_call","id":"j","call_id":"c2","name":"rm","args":{},"gate":true,"line":3}',
      ),
    ).toMatchObject({ type: 'tool_call', name: 'rm', gate: true, line: 3 });
    expect(parseWorkerLine('{"type":"tool_call","name":"rm","gate":"yes","line":-1}')).toMatchObject({
      gate: false,
      line: undefined,
    });
    expect(
      parseWorkerLine(
        '{"type":"done","id":"j","ok":false,"reason":"timeout","error":{"type":"Timeout","message":"late","frames":[]}}',
      ),
    ).toMatchObject({
      type: 'done',
      id: 'j',
      ok: false,
      reason: 'timeout',
      error: { type: 'Timeout', message: 'late', frames: [] },
    });
    expect(parseWorkerLine('{"type":"pong","busy":false}')).toEqual({ type: 'pong', busy: false });
  });

  it('reads odd fields of a known message leniently, as the host always has', () => {
    expect(parseWorkerLine('{"type":"done","id":"j","ok":1,"error":{"type":5,"frames":"x"}}')).toMatchObject({
      ok: false,
      error: { type: '5', message: '', frames: [] },
    });
    expect(parseWorkerLine('{"type":"trace","location":"elsewhere","ms":"2","error":3,"refused":1}')).toEqual(
      {
        type: 'trace',
        name: '',
        args: {},
        ms: 2,
        location: 'sandbox',
        error: '3',
        refused: true,
      },
    );
    expect(parseWorkerLine('{"type":"tool_call","args":null}')).toEqual({
      type: 'tool_call',
      call_id: '',
      name: '',
      args: {},
      gate: false,
    });
    expect(parseWorkerLine('{"type":"ready","tools":{"add":1}}')).toEqual({
      type: 'ready',
      runtime: '',
      version: '',
      tools: [],
    });
    expect(parseWorkerLine('{"type":"load_error"}')).toEqual({ type: 'load_error', error: {} });
    expect(parseWorkerLine('{"type":"emit","id":"j","kind":"log"}')).toEqual({
      type: 'emit',
      id: 'j',
      kind: 'log',
      data: null,
    });
  });
});
