/**
 * Writes sandbox-images/python/toolsmith_worker/surface.py (the worker's copy of the language surface)
 * from src-main/core/lang/builtins.ts. Run it after changing the lists there:
 * `node scripts/gen-python-surface.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pythonSurfaceSource } from '../src-main/core/lang/python/surface.ts';

const out = fileURLToPath(new URL('../sandbox-images/python/toolsmith_worker/surface.py', import.meta.url));
writeFileSync(out, pythonSurfaceSource());
console.log(`wrote ${out}`);
