/**
 * A violation has one shape: the validators' `Violation` (core/lang, which loads no zod) is the type the
 * event schema's `violationSchema` parses to, and the MCP server's `validate` answer uses that schema
 * (src-main/mcp/mcp.ts). A field added to one side and not the other fails the type check here, and a
 * violation a validator really reports parses with the schema, no field dropped.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { validatePython } from '../../../src-main/core/lang/python/validate.ts';
import type { Violation } from '../../../src-main/core/lang/violation.ts';
import { violationSchema } from '../../../src-main/core/records/schemas.ts';

describe('the violation shape', () => {
  it('is the same type in the validators and the event schema', () => {
    expectTypeOf<z.infer<typeof violationSchema>>().toEqualTypeOf<Violation>();
  });

  it("parses a validator's violation whole", () => {
    const r = validatePython('import os\nemit_result(1)\n', { tools: [] });
    expect(r.valid).toBe(false);
    const v = r.violations[0]!;
    expect(violationSchema.strict().parse(v)).toEqual(v);
  });
});
