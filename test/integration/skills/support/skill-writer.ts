/**
 * A process changing a workspace's skills' files as a Toolsmith process does, for the test of two at
 * once (run with the Node 24 the package ships, which strips types). It waits until the wall clock
 * reaches argv[3] (ms), so that two of these start their writes in the same millisecond, then:
 * - `verdicts ROOT AT TAG N`: records a test verdict for skills TAG0..TAG(N-1) of sandbox `support`,
 *   one after another (SkillFiles.setVerdict, what each `skill test` and `skill create` ends with);
 * - `saves ROOT AT TAG N`: saves N new versions of skill `shared` of sandbox `support`, each under the
 *   workspace's skills lock as the service's save does (its version read, then the file written);
 *   each version's source returns "TAG i".
 */
import { SkillFiles } from '../../../../src-main/infra/workspace/skill-files.ts';

const [mode, root, at, tag, count] = process.argv.slice(2) as [string, string, string, string, string];
const files = new SkillFiles(root);
const nap = new Int32Array(new SharedArrayBuffer(4));
while (Date.now() < Number(at)) Atomics.wait(nap, 0, 0, 1);
for (let i = 0; i < Number(count); i++) {
  if (mode === 'verdicts')
    files.setVerdict('support', `${tag}${i}`, { hash: `h${i}`, passed: true, at: Date.now(), failures: [] });
  else
    files.locked('saving skill shared', () =>
      files.write({
        name: 'shared',
        sandbox: 'support',
        language: 'python',
        version: files.nextVersion('support', 'shared'),
        source: `def shared() -> str:\n    """Who saved this version."""\n    return "${tag} ${i}"\n`,
        tests: [],
      }),
    );
}
