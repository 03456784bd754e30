import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { SettingsView } from '../../../src-main/contract/api.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const svc = ToolsmithService.open(ws);
afterAll(() => removeWorkspace(ws));

describe('provider keys', () => {
  it('a key set without a keychain is reported as kept in memory, never as keychain', async () => {
    const before = await dispatch(svc, 'settings.get', {});
    expect(before).toMatchObject({ ok: true });
    const set = await dispatch(svc, 'settings.setProviderKey', { provider: 'local', key: 'sk-test' });
    expect(set).toEqual({ ok: true, value: { stored: true, where: 'memory' } });
    const after = await dispatch(svc, 'settings.get', {});
    if (!after.ok) throw new Error(after.error.message);
    expect((after.value as SettingsView).providers.find((p) => p.id === 'local')?.keySource).toBe('memory');
    expect(JSON.stringify(after.value)).not.toContain('sk-test');
  });

  it('a desktop front end that stores the key in the keychain is reported as such', async () => {
    const set = await dispatch(
      svc,
      'settings.setProviderKey',
      { provider: 'local', key: 'sk-2' },
      {
        storeKey: () => 'keychain',
      },
    );
    expect(set).toEqual({ ok: true, value: { stored: true, where: 'keychain' } });
    const after = await dispatch(svc, 'settings.get', {});
    if (!after.ok) throw new Error(after.error.message);
    expect((after.value as SettingsView).providers.find((p) => p.id === 'local')?.keySource).toBe('keychain');
  });

  it('refuses a provider the config does not declare', async () => {
    const r = await dispatch(svc, 'settings.setProviderKey', { provider: 'nope', key: 'k' });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('provider order', () => {
  it('moves a provider to the front (the default) and back, rewriting config.toml; the order is the view order', async () => {
    const add = await dispatch(svc, 'providers.save', {
      id: 'second',
      kind: 'openai',
      model: 'm',
      baseUrl: 'http://127.0.0.1:9/v1',
    });
    expect(add).toMatchObject({ ok: true });
    expect(svc.config.providers.map((p) => p.id)).toEqual(['local', 'second']);
    expect(await dispatch(svc, 'providers.move', { id: 'second', to: 0 })).toEqual({
      ok: true,
      value: { order: ['second', 'local'] },
    });
    expect(svc.config.providers.map((p) => p.id)).toEqual(['second', 'local']);
    const text = readFileSync(join(ws, '.toolsmith', 'config.toml'), 'utf8');
    expect(text.indexOf('id = "second"')).toBeLessThan(text.indexOf('id = "local"'));
    const view = await dispatch(svc, 'settings.get', {});
    if (!view.ok) throw new Error(view.error.message);
    expect((view.value as SettingsView).providers.map((p) => p.id)).toEqual(['second', 'local']);
    // A position past the end is the end.
    expect(await dispatch(svc, 'providers.move', { id: 'second', to: 99 })).toMatchObject({
      value: { order: ['local', 'second'] },
    });
  });
  it('refuses an unknown provider and a negative position', async () => {
    expect(await dispatch(svc, 'providers.move', { id: 'nope', to: 0 })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await dispatch(svc, 'providers.move', { id: 'local', to: -1 })).toMatchObject({ ok: false });
  });
});
