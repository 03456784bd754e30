import { describe, expect, it } from 'vitest';
import type { McpServerView } from '../../../../src-main/contract/api.ts';
import { draftOf, emptyDraft, pairs, saveRequest } from './server.ts';

describe('pairs', () => {
  it('reads KEY=value lines, skipping blank ones and trimming', () => {
    expect(pairs('A=1\n\n B = env:B \nURL=http://x/?a=b', 'env')).toEqual({
      A: '1',
      B: 'env:B',
      URL: 'http://x/?a=b',
    });
  });

  it('names the first bad line', () => {
    expect(() => pairs('A=1\nnope', 'env')).toThrow('env line 2: write KEY=value');
    expect(() => pairs('=x', 'headers')).toThrow('headers line 1: write KEY=value');
  });
});

describe('saveRequest', () => {
  it('a stdio server: command, one argument per line, env', () => {
    expect(
      saveRequest({
        ...emptyDraft(''),
        name: ' fs ',
        command: ' npx ',
        args: '-y\n\n@scope/server\n',
        env: 'TOKEN=env:FS_TOKEN',
        sandbox: ' files ',
      }),
    ).toEqual({
      name: 'fs',
      timeout_ms: 30000,
      sandbox: 'files',
      command: 'npx',
      args: ['-y', '@scope/server'],
      env: { TOKEN: 'env:FS_TOKEN' },
    });
  });

  it('an HTTP server: URL and headers; a bad time limit falls back to 30 s', () => {
    expect(
      saveRequest({
        ...emptyDraft(''),
        name: 'web',
        transport: 'http',
        url: ' https://h/mcp ',
        headers: 'Authorization=env:TOKEN',
        timeoutMs: 'soon',
        description: 'the web',
      }),
    ).toEqual({
      name: 'web',
      description: 'the web',
      timeout_ms: 30000,
      url: 'https://h/mcp',
      headers: { Authorization: 'env:TOKEN' },
    });
  });
});

describe('draftOf', () => {
  it('turns a declared server back into the form, which saves it unchanged', () => {
    const s = {
      name: 'fs',
      transport: 'stdio',
      description: 'files',
      sandboxes: ['files', 'other'],
      def: { command: 'npx', args: ['-y', 'srv'], env: { A: 'env:A' }, headers: {}, timeout_ms: 5000 },
    } as unknown as McpServerView;
    const d = draftOf(s);
    expect(d).toEqual({
      name: 'fs',
      transport: 'stdio',
      command: 'npx',
      args: '-y\nsrv',
      env: 'A=env:A',
      url: '',
      headers: '',
      timeoutMs: '5000',
      startupTimeoutMs: '',
      description: 'files',
      sandbox: 'files',
    });
    expect(saveRequest(d)).toEqual({
      name: 'fs',
      description: 'files',
      timeout_ms: 5000,
      sandbox: 'files',
      command: 'npx',
      args: ['-y', 'srv'],
      env: { A: 'env:A' },
    });
  });

  it("keeps the server's startup_timeout_ms through an edit", () => {
    const s = {
      name: 'slow',
      transport: 'http',
      description: '',
      sandboxes: [],
      def: {
        url: 'https://h/mcp',
        args: [],
        env: {},
        headers: {},
        timeout_ms: 1500,
        startup_timeout_ms: 60000,
      },
    } as unknown as McpServerView;
    expect(saveRequest(draftOf(s))).toEqual({
      name: 'slow',
      timeout_ms: 1500,
      startup_timeout_ms: 60000,
      url: 'https://h/mcp',
      headers: {},
    });
  });
});
