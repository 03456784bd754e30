/** The config of isolation levels and engines: what is accepted, and clear errors for what is not. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src-main/app/config.ts';

describe('sandbox isolation and engines config', () => {
  it('accepts the three levels and engines defined under [engines]', () => {
    const c = parseConfig({
      engines: {
        far: { host: 'tcp://10.0.0.7:2376', tls_ca: 'ca.pem', tls_cert: 'c.pem', tls_key: 'k.pem' },
        pod: { host: 'unix:///run/podman/podman.sock', max_workers: 2 },
      },
      sandboxes: {
        a: { isolation: 'process' },
        b: { isolation: 'docker', engines: ['local', 'far'] },
        c: { isolation: 'gvisor', engines: ['pod'] },
        d: {},
      },
    });
    expect(c.sandboxes['a']?.isolation).toBe('process');
    expect(c.sandboxes['b']?.engines).toEqual(['local', 'far']);
    expect(c.sandboxes['d']?.isolation).toBeUndefined();
    expect(c.engines['far']?.max_workers).toBe(8);
    expect(c.engines['pod']?.max_workers).toBe(2);
  });

  it('refuses unknown levels, undefined engines, bad hosts and process on engines', () => {
    expect(() => parseConfig({ sandboxes: { s: { isolation: 'kvm' } } })).toThrow(/sandboxes\.s\.isolation/);
    expect(() => parseConfig({ sandboxes: { s: { engines: ['nowhere'] } } })).toThrow(
      /sandboxes\.s\.engines: no engine 'nowhere' \(define it under \[engines\.nowhere\]\)/,
    );
    expect(() => parseConfig({ sandboxes: { s: { engines: [] } } })).toThrow(/sandboxes\.s\.engines/);
    expect(() => parseConfig({ engines: { x: { host: 'http://h:2375' } } })).toThrow(
      /engines\.x\.host: use unix:\/\/\/path\.sock or tcp:\/\/host:port/,
    );
    expect(() => parseConfig({ sandboxes: { s: { isolation: 'process', engines: ['local'] } } })).toThrow(
      /isolation "process" runs on this machine, not on engines/,
    );
  });

  it('refuses a runtime that does not exist, in a sandbox or as a [runtimes] table (cobol was taken silently)', () => {
    expect(() => parseConfig({ sandboxes: { s: { runtime: 'cobol' } } })).toThrow(
      /sandboxes\.s\.runtime: no such runtime: use one of python, node, bun, deno/,
    );
    expect(() => parseConfig({ runtimes: { cobol: { enabled: true } } })).toThrow(
      /runtimes\.cobol: no such runtime: use one of python, node, bun, deno/,
    );
    const c = parseConfig({
      sandboxes: { s: { runtime: 'node' }, t: {} },
      runtimes: { bun: { enabled: true } },
    });
    expect([c.sandboxes['s']?.runtime, c.sandboxes['t']?.runtime, c.runtimes['bun']?.enabled]).toEqual([
      'node',
      'python',
      true,
    ]);
  });
});
