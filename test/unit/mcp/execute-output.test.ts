/**
 * execute_code answers with the job's result as structured content, which clients validate against the
 * tool's output schema, where a field the schema does not name is an error ("Structured content does
 * not match the tool's output schema: data must NOT have additional properties"). Every field a job's
 * result can hold is named there: a job on the process level (its `isolationDetails`, or
 * `isolationReason` where it stood in for Docker) and a job that waited for its worker (`waitMs`) were
 * answered with that error instead of their result.
 */
import { describe, expect, it } from 'vitest';
import { executionResultSchema } from '../../../src-main/core/records/schemas.ts';
import { EXECUTE_OUTPUT } from '../../../src-main/mcp/mcp.ts';

describe("execute_code's output schema", () => {
  it('names every field of a job result', () => {
    const named = new Set(Object.keys(EXECUTE_OUTPUT));
    const missing = Object.keys(executionResultSchema.shape).filter((k) => !named.has(k));
    expect(missing).toEqual([]);
  });
});
