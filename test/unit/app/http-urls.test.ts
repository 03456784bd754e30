/**
 * A provider's base_url and an MCP server's url written without their scheme (`localhost:8080/v1`): a URL
 * parser reads `localhost:` as the scheme, so z.string().url() took them, they were saved, and they failed
 * later, on the first request, with a message that never named the setting. Now refused where they enter,
 * naming the key, the value and the form expected: config.toml at load, and the workbench's save and test
 * requests (through the same dispatch the IPC handler and the web server use), config.toml unchanged.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src-main/app/config.ts';
import { baseUrlOptionProblem } from '../../../src-main/core/text/http-url.ts';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const EXPECTED =
  /expected an http:\/\/ or https:\/\/ URL with a host, such as http:\/\/localhost:8080\/v1, got "localhost:8080\/v1"/;

const load = (text: string) => () => parseConfig(parse(text), '.toolsmith/config.toml', text);

describe('config.toml', () => {
  it('a provider base_url without its scheme: refused, naming the line, the key and the value', () => {
    const text =
      '[[providers]]\nid = "local"\nkind = "openai"\nmodel = "m"\nbase_url = "localhost:8080/v1"\n';
    expect(load(text)).toThrow(
      /^\.toolsmith\/config\.toml:5: providers\.0\.base_url: expected an http:\/\/ or https:\/\/ URL/,
    );
    expect(load(text)).toThrow(EXPECTED);
    // Neither is a bare IP with a port, nor another scheme.
    expect(load(text.replace('localhost:8080/v1', '127.0.0.1:8080/v1'))).toThrow(
      /providers\.0\.base_url: .*such as http:\/\/127\.0\.0\.1:8080\/v1, got "127\.0\.0\.1:8080\/v1"/,
    );
    expect(load(text.replace('localhost:8080/v1', 'ftp://h/v1'))).toThrow(
      /providers\.0\.base_url: .*such as http:\/\/127\.0\.0\.1:11434\/v1, got "ftp:\/\/h\/v1"/,
    );
    expect(load(text.replace('localhost:8080/v1', 'https://h:8080/v1'))()).toMatchObject({
      providers: [{ base_url: 'https://h:8080/v1' }],
    });
  });

  it('credentials typed before the host are not quoted back', () => {
    const text =
      '[[providers]]\nid = "p"\nkind = "openai"\nmodel = "m"\nbase_url = "me:s3cret@llm:8080/v1"\n';
    expect(load(text)).toThrow(/providers\.0\.base_url: .*got "\[redacted\]@llm:8080\/v1"/);
    expect(load(text)).not.toThrow(/s3cret/);
  });

  it('an MCP server url without its scheme: refused, naming the key and the value', () => {
    const text = '[mcp_servers.notes]\nurl = "localhost:3000/mcp"\n';
    expect(load(text)).toThrow(
      /^\.toolsmith\/config\.toml:2: mcp_servers\.notes\.url: expected an http:\/\/ or https:\/\/ URL with a host, such as http:\/\/localhost:3000\/mcp, got "localhost:3000\/mcp"/,
    );
    expect(load('[mcp_servers.notes]\nurl = "http://localhost:3000/mcp"\n')()).toMatchObject({
      mcp_servers: { notes: { url: 'http://localhost:3000/mcp' } },
    });
  });

  it('a service opened on such a config says why it is not in use', async () => {
    const ws = tempWorkspace();
    try {
      const file = join(ws, '.toolsmith', 'config.toml');
      writeFileSync(
        file,
        `${readFileSync(file, 'utf8')}\n[[providers]]\nid = "typo"\nkind = "openai"\nmodel = "m"\nbase_url = "localhost:8080/v1"\n`,
      );
      expect(() => ToolsmithService.open(ws)).toThrow(/providers\.\d+\.base_url: .*got "localhost:8080\/v1"/);
    } finally {
      removeWorkspace(ws);
    }
  });
});

describe('--base-url (run and eval: test/unit/cli/usage-errors.test.ts)', () => {
  it('names the option; another scheme is offered the example config.toml and the form offer', () => {
    expect(baseUrlOptionProblem('localhost:8080/v1')).toBe(
      '--base-url: expected an http:// or https:// URL with a host, such as http://localhost:8080/v1, got "localhost:8080/v1"',
    );
    expect(baseUrlOptionProblem('ftp://h/v1')).toBe(
      '--base-url: expected an http:// or https:// URL with a host, such as http://127.0.0.1:11434/v1, got "ftp://h/v1"',
    );
    expect(baseUrlOptionProblem('http://h:8080/v1')).toBeUndefined();
  });
});

describe('the workbench (dispatch: IPC and web server)', () => {
  const ws = tempWorkspace();
  const svc = ToolsmithService.open(ws);
  const file = join(ws, '.toolsmith', 'config.toml');
  afterAll(async () => {
    await svc.close();
    removeWorkspace(ws);
  });

  it('providers.save: refused naming the field, the value and the form; config.toml unchanged', async () => {
    const before = readFileSync(file, 'utf8');
    const r = await dispatch(svc, 'providers.save', {
      id: 'typo',
      kind: 'openai',
      model: 'm',
      baseUrl: 'localhost:8080/v1',
      add: true,
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    if (r.ok) return;
    expect(r.error.message).toMatch(/^baseUrl: /);
    expect(r.error.message).toMatch(EXPECTED);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(svc.config.providers.map((p) => p.id)).not.toContain('typo');
    // Another scheme: the example config.toml and --base-url offer too.
    const ftp = await dispatch(svc, 'providers.save', {
      id: 'typo',
      kind: 'openai',
      model: 'm',
      baseUrl: 'ftp://h/v1',
      add: true,
    });
    expect(ftp).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    if (!ftp.ok)
      expect(ftp.error.message).toMatch(
        /^baseUrl: .*such as http:\/\/127\.0\.0\.1:11434\/v1, got "ftp:\/\/h\/v1"/,
      );
  });

  it('providers.test: the same answer, before any connection is tried', async () => {
    const r = await dispatch(svc, 'providers.test', {
      kind: 'openai',
      model: 'm',
      baseUrl: 'localhost:8080/v1',
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    if (!r.ok) expect(r.error.message).toMatch(EXPECTED);
  });

  it('mcp.save: an HTTP server without its scheme is refused naming url; config.toml unchanged', async () => {
    const before = readFileSync(file, 'utf8');
    const r = await dispatch(svc, 'mcp.save', { name: 'notes', url: 'localhost:3000/mcp' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    if (!r.ok)
      expect(r.error.message).toMatch(
        /^url: expected an http:\/\/ or https:\/\/ URL with a host, such as http:\/\/localhost:3000\/mcp, got "localhost:3000\/mcp"/,
      );
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(svc.config.mcp_servers['notes']).toBeUndefined();
  });
});
