/**
 * [approval] names that match nothing, told as warnings on every verb (app/approval-names.ts): past
 * MAX_NAME_WARNINGS names the rest are counted, as config-keys counts keys no setting has.
 */
import { describe, expect, it } from 'vitest';
import { MAX_NAME_WARNINGS, approvalNameProblems } from '../../../src-main/app/approval-names.ts';
import { parseConfig } from '../../../src-main/app/config.ts';
import { parseTomlFile } from '../../../src-main/infra/workspace/files.ts';

const configOf = (text: string) => parseConfig(parseTomlFile('config.toml', text), 'config.toml', text);

describe('[approval] names that match nothing', () => {
  it(`past ${MAX_NAME_WARNINGS} names the rest are counted, each key's line looked for once`, () => {
    const names = Array.from({ length: 5000 }, (_, i) => `"ecommerce.tool_${i}"`);
    const text = `[approval]\nsandboxes = ["ecommerc"]\ntools = [\n${names.join(',\n')}\n]\n`;
    const config = configOf(text);
    const said = approvalNameProblems(config, 'config.toml', text, ['ecommerce'], [], () => ['get_user']);
    // Before: 5001 lines, said on every verb's stderr (20 000 names took minutes).
    expect(said).toHaveLength(MAX_NAME_WARNINGS + 1);
    expect(said[0]).toBe(
      'config.toml:2: approval.sandboxes names no sandbox "ecommerc" (sandboxes: ecommerce): no call is held for approval by it; fix the name',
    );
    expect(said[1]).toMatch(
      /^config\.toml:3: approval\.tools names "ecommerce\.tool_0", but sandbox ecommerce has no tool "tool_0" \(/,
    );
    expect(said[MAX_NAME_WARNINGS]).toBe(
      `config.toml: ${5001 - MAX_NAME_WARNINGS} more [approval] names that match nothing (the first ${MAX_NAME_WARNINGS} are named above): no call is held for approval by them; fix the names`,
    );
  });

  it('up to the bound, each is told', () => {
    const text = '[approval]\ntools = ["ecommerce.get_user", "ecommerce.get_usr"]\n';
    const said = approvalNameProblems(configOf(text), 'config.toml', text, ['ecommerce'], [], () => [
      'get_user',
    ]);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('names "ecommerce.get_usr", but sandbox ecommerce has no tool "get_usr"');
  });
});
