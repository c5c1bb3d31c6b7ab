import { readFileSync } from 'node:fs';
import { z } from '@deepseek-ai/dsh-core';
import { CliError, CliErrorCode } from '../errors.js';
import type { ReplayRow } from './rows.js';

const expectationSchema = z.strictObject({
  /** Selects the call with this recorded id. */
  call: z.string().min(1).optional(),
  /** Selects calls to this tool: the recorded name (`Bash`) or ours (`bash`). */
  tool: z.string().min(1).optional(),
  /** Selects calls whose recorded input, as JSON text, contains this. */
  input: z.string().min(1).optional(),
  /** What every selected call must be decided. */
  decision: z.enum(['allow', 'ask', 'deny', 'error', 'unmapped']),
  /** …by a tap, guard or handler whose name contains this. */
  by: z.string().min(1).optional(),
  /** …with this outcome code. */
  code: z.string().min(1).optional(),
});

const expectationsObjectSchema = z.strictObject({ expect: z.array(expectationSchema) });

/** The zod schema of a `--expect` file: a list of expectations, or `{ "expect": [...] }`. */
export const expectationsFileSchema = z.union([z.array(expectationSchema), expectationsObjectSchema]);

/** One expectation: a selector (call, tool, input; none selects every call) and what the selected calls must be. */
export type Expectation = z.infer<typeof expectationSchema>;

/** The outcome of checking one expectation. */
export interface ExpectationResult {
  readonly expectation: Expectation;
  readonly ok: boolean;
  /** How many calls it selected. */
  readonly matched: number;
  /** Why it failed: one line per call that broke it, or that it selected none. */
  readonly failures: readonly string[];
}

/** Reads and validates a `--expect` file (`EXPECTATIONS_INVALID` naming the entry and field). */
export function readExpectations(path: string): Expectation[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(CliErrorCode.EXPECTATIONS_INVALID, `${path}: cannot read expectations: ${(error as Error).message}`);
  }
  // Checked against the shape it claims (a list, or an object) so errors name the entry, not "invalid union".
  const parsed = Array.isArray(json) ? z.array(expectationSchema).safeParse(json) : expectationsObjectSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.map(String).join('.') : '(top level)';
    throw new CliError(CliErrorCode.EXPECTATIONS_INVALID, `${path}: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const data: Expectation[] | { expect: Expectation[] } = parsed.data;
  return Array.isArray(data) ? data : data.expect;
}

/** Checks each expectation against the rows; one that selects no call fails. */
export function checkExpectations(expectations: readonly Expectation[], rows: readonly ReplayRow[]): ExpectationResult[] {
  return expectations.map((expectation) => {
    const selected = rows.filter(
      (r) =>
        (expectation.call === undefined || r.call === expectation.call) &&
        (expectation.tool === undefined || r.recordedName === expectation.tool || r.tool === expectation.tool) &&
        (expectation.input === undefined || inputText(r).includes(expectation.input)),
    );
    const failures: string[] = [];
    if (selected.length === 0) failures.push('selected no call');
    for (const r of selected) {
      const wrong =
        r.decision !== expectation.decision ||
        (expectation.by !== undefined && !r.by.includes(expectation.by)) ||
        (expectation.code !== undefined && r.code !== expectation.code);
      if (wrong) failures.push(`${r.call} (${r.recordedName}): ${r.decision} by ${r.by}${r.code ? ` ${r.code}` : ''}`);
    }
    return { expectation, ok: failures.length === 0, matched: selected.length, failures };
  });
}

/** A one-line description of an expectation, for reports. */
export function describeExpectation(e: Expectation): string {
  const selector = [
    e.call === undefined ? undefined : `call ${e.call}`,
    e.tool === undefined ? undefined : `tool ${e.tool}`,
    e.input === undefined ? undefined : `input ~ ${JSON.stringify(e.input)}`,
  ].filter((s) => s !== undefined);
  const want = [e.decision, e.by === undefined ? undefined : `by ${e.by}`, e.code].filter((s) => s !== undefined).join(' ');
  return `${selector.length === 0 ? 'every call' : selector.join(', ')} → ${want}`;
}

function inputText(row: ReplayRow): string {
  const parts = [row.input, row.args].map((a) => (typeof a === 'string' ? a : JSON.stringify(a ?? {})));
  return parts.join(' ');
}
