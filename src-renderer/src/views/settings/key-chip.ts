import type { Settings } from '../../store/settings.ts';

const KEY_SOURCE: Record<Settings['providers'][number]['keySource'], { label: string; title: string }> = {
  env: { label: 'environment', title: 'The key comes from the environment variable named in the config.' },
  keychain: { label: 'keychain', title: 'Stored in the OS keychain by the desktop app.' },
  memory: {
    label: 'set in this process',
    title: 'Set from this workbench: held in memory by the service process until it stops.',
  },
  none: { label: 'no key', title: 'No key: set one below, or export the environment variable.' },
};

/** The key chip: a warning only when the provider needs a key and has none. */
export function keyChip(p: Pick<Settings['providers'][number], 'keySource' | 'keyNeeded'>): {
  label: string;
  title: string;
  tone: 'good' | 'warn' | 'plain';
} {
  if (p.keySource !== 'none') return { ...KEY_SOURCE[p.keySource], tone: 'good' };
  if (!p.keyNeeded)
    return { label: 'no key needed', title: 'A server on this machine: it takes no key.', tone: 'plain' };
  return { ...KEY_SOURCE.none, tone: 'warn' };
}
