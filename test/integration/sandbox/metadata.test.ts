/** The host's static tool extraction and the worker's load-time derivation must agree on every tool. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { extractTools } from '../../../src-main/core/tools/extract.ts';
import { DockerWorkerFactory } from '../../../src-main/infra/sandbox/docker.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { repoRoot } from '../../support/workspace.ts';

const docker = new Docker();
const factory = new DockerWorkerFactory(docker, (rt) => buildImage(docker, rt, imagePaths()));
afterAll(() => factory.dispose());

const sources: [string, string][] = [
  ['ecommerce', readFileSync(join(repoRoot, 'resources/workspace/sandboxes/ecommerce/tools.py'), 'utf8')],
  ['support', readFileSync(join(repoRoot, 'resources/workspace/sandboxes/support/tools.py'), 'utf8')],
  ['fixture', readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8')],
  [
    'typed',
    `from typing import Literal, Optional\n\n@tool(examples={"n": [1, 2]}, source={"q": "context"}, display_name={"q": "Query"})\ndef t(q: str, n: int = 3, f: float = -1.5, flag: bool = True, mode: Literal["a", "b"] = "a", opt: Optional[str] = None, tags: list[str] = [], meta: dict = {}) -> ToolResponse:\n    """Typed tool.\n\n    Args:\n        q (str): The query\n            over two lines.\n        n: How many.\n\n    Returns:\n        Things.\n    """\n    return ToolResponse(success=True)\n`,
  ],
  [
    // How each parameter may be passed (positional-only, keyword-only) and *args/**kwargs: the
    // validator's tool-arguments checks read them.
    'kinds',
    `@tool\ndef po(x: int, /, y: str = "a", *, z: bool = False) -> ToolResponse:\n    """Positional-only and keyword-only."""\n    return ToolResponse(success=True)\n\n@tool\ndef many(first: str, *rest, key: int = 1, **options) -> ToolResponse:\n    """Variadic."""\n    return ToolResponse(success=True)\n`,
  ],
];

describe('tool metadata: host extraction == worker derivation', () => {
  it.each(sources)(
    '%s',
    async (name, source) => {
      const { conn } = await factory.spawn({
        name,
        runtime: 'python',
        toolsSource: source,
        hostTools: [],
        credentials: {},
      });
      try {
        const ready = await conn.load({ source, hostTools: [], credentials: [] });
        const host = extractTools(source).tools.map(({ line: _line, ...t }) => t);
        expect(ready.tools).toEqual(JSON.parse(JSON.stringify(host)));
      } finally {
        await conn.kill('test done');
      }
    },
    120_000,
  );
});
