/** The CLI run in this process (`main` with captured output): what a verb prints and its exit code. */
import { main } from '../../src-main/cli/main.ts';

export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}
