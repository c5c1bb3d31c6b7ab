import { copyFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnySessionEvent,
  createHost,
  defineTool,
  loadSessionLog,
  openJsonlSink,
  type ResumedSession,
  resumeSession,
  z,
} from './index.js';
import { readSessionJournal } from './session-journal.js';
import { logProblems } from './testing/index.js';

// A resume must itself be resumable at every point. Each case is a crashed session of mixed calls;
// its first resume is cut short after every one of the events it appends in turn, with and without a
// torn half of the next event (a kill leaves a prefix of the log: the events written before it and
// perhaps part of one, none after), then further resumes are cut short at random points, and a last
// resume runs to its end. Every call must end with exactly one result.

const kinds = ['lookup', 'note', 'confirm-allowed', 'confirm-rejected', 'deploy'] as const;
type Kind = (typeof kinds)[number];
/** Idempotent tools run again on a resume; the others end TOOL_INTERRUPTED. `confirm` and `deploy` are asked. */
const idempotent = (kind: Kind) => kind === 'lookup' || kind.startsWith('confirm');
const toolOf = (kind: Kind) => (kind.startsWith('confirm') ? 'confirm' : kind);

const session = fc.array(fc.record({ kind: fc.constantFrom(...kinds), answered: fc.boolean() }), { minLength: 1, maxLength: 4 });
const laterKills = fc.array(fc.record({ kept: fc.nat({ max: 12 }), torn: fc.boolean() }), { maxLength: 2 });

const at = '2026-12-05T10:00:00.000Z';
const originalOutcome = { status: 'ok', stage: 'execute', output: { original: true } };

/**
 * The log the first crash left: the calls, the results of those answered, and maybe a torn last line.
 * `marked`: as logged since steps are, the calls' step/start first and no step/end (the crash cut the step).
 */
function crashedLog(calls: readonly { kind: Kind; answered: boolean }[], torn: boolean, marked: boolean): string {
  const events: object[] = [];
  const add = (type: string, call: string, data: object) =>
    events.push({ seq: events.length + 1, at, session: 's1', type, call, token: `t-${call}`, data });
  if (marked) events.push({ seq: 1, at, session: 's1', type: 'step/start', data: { calls: calls.map((_, i) => `c${i}`) } });
  for (const [i, c] of calls.entries()) {
    const args = c.kind.startsWith('confirm') ? { answer: c.kind === 'confirm-allowed' ? 'allowed-once' : 'rejected' } : { n: i };
    add('tool/call', `c${i}`, { name: toolOf(c.kind), args: JSON.stringify(args) });
    if (c.answered) add('tool/result', `c${i}`, { name: toolOf(c.kind), outcome: originalOutcome });
  }
  const text = events.map((e) => `${JSON.stringify(e)}\n`).join('');
  return torn ? `${text}{"seq":${events.length + 1},"at":"2026-` : text;
}

/** What ran in the resumes: bodies by tool, and approval requests. */
interface Runs {
  readonly bodies: string[];
  readonly asked: string[];
}

async function resume(path: string, runs: Runs): Promise<ResumedSession> {
  const host = createHost({
    session: 's1',
    sink: await openJsonlSink(path),
    defaultDecision: 'allow',
    approval: (request) => {
      runs.asked.push(`${request.call.name}:${request.call.id}`);
      return (request.args as { answer: string }).answer as 'allowed-once' | 'rejected';
    },
  });
  const body = (name: string, isIdempotent: boolean, input: z.ZodObject) =>
    defineTool({
      name,
      description: `${name} for the crash test.`,
      idempotent: isIdempotent,
      input,
      execute: (_args, ctx) => {
        runs.bodies.push(`${name}:${ctx.call.id}`);
        return { ran: name };
      },
    });
  host.tools.register(body('lookup', true, z.object({ n: z.number() })));
  host.tools.register(body('note', false, z.object({ n: z.number() })));
  host.tools.register(body('deploy', false, z.object({ n: z.number() })));
  host.tools.register(body('confirm', true, z.object({ answer: z.string() })));
  host.hooks.preExecute.tap('ask-first', (state) =>
    state.call.name === 'confirm' || state.call.name === 'deploy' ? { decision: 'ask', reason: 'asked' } : undefined,
  );
  try {
    return await resumeSession(host, path);
  } finally {
    await host.close();
  }
}

/** Where a kill cuts a resume short: after `kept` of the events it appends, and in the middle of the next one when `torn`. */
interface Kill {
  readonly kept: number;
  readonly torn: boolean;
}

/**
 * Runs a resume and keeps only what a kill at `kill` would have left of what it appended
 * (a resume terminates a torn last line first: that newline counts as part of its first event).
 * Returns how many events it appended.
 */
async function resumeKilled(path: string, kill: Kill, runs: Runs): Promise<number> {
  const before = await readFile(path);
  await resume(path, runs);
  const text = (await readFile(path)).subarray(before.length).toString('utf8');
  const lines = text.split('\n').slice(0, -1);
  const events = lines.filter((l) => l !== '');
  if (kill.kept < events.length) {
    // The newline that terminated an earlier torn line is an empty line here: it stays with the first event.
    const lead = lines[0] === '' ? 1 : 0;
    const whole = lines.slice(0, lead + kill.kept).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    const next = events[kill.kept] ?? '';
    await truncate(path, before.length + whole + (kill.torn ? Math.floor(Buffer.byteLength(next) / 2) : 0));
  }
  return events.length;
}

function resultsPerCall(events: readonly AnySessionEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of events) if (e.type === 'tool/result' && e.call !== undefined) counts.set(e.call, (counts.get(e.call) ?? 0) + 1);
  return counts;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-resume-prop-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a resume killed at any point is resumed again without losing or doubling a call (issue 36 item 1)', () => {
  it('gives every call exactly one result after a kill at every event boundary of a resume, then random further kills', async () => {
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(session, fc.boolean(), fc.boolean(), laterKills, async (calls, tornAtStart, marked, later) => {
        cases += 1;
        const base = join(dir, `case-${cases}.jsonl`);
        await writeFile(base, crashedLog(calls, tornAtStart, marked));
        // A resume that runs to its end tells how many events a resume of this log appends.
        const probe = join(dir, `probe-${cases}.jsonl`);
        await copyFile(base, probe);
        const full = await resumeKilled(probe, { kept: Number.POSITIVE_INFINITY, torn: false }, { bodies: [], asked: [] });
        const firstKills = Array.from({ length: full + 1 }, (_, kept) => [false, true].map((torn) => ({ kept, torn }))).flat();
        for (const first of firstKills) {
          const path = join(dir, `case-${cases}-${first.kept}-${first.torn}.jsonl`);
          await copyFile(base, path);
          const runs: Runs = { bodies: [], asked: [] };
          await resumeKilled(path, first, runs);
          for (const kill of later) await resumeKilled(path, kill, runs);
          const last = await resume(path, runs);

          const where = `calls ${JSON.stringify(calls)}, torn at start ${tornAtStart}, steps marked ${marked}, first kill ${JSON.stringify(first)}, later ${JSON.stringify(later)}`;
          const { events, unknownOutcomes } = await loadSessionLog(path);
          expect(logProblems(events), where).toEqual([]);
          expect(unknownOutcomes, where).toEqual([]);
          const journal = await readSessionJournal(path);
          expect(journal.open, where).toEqual([]);
          // Every step ends once: the cut step (when the log marks steps) and every re-run step of every resume.
          expect(journal.openSteps, where).toEqual([]);
          const ends = events.filter((e) => e.type === 'step/end');
          expect(new Set(ends.map((e) => e.type === 'step/end' && e.data.startSeq)).size, where).toBe(ends.length);
          expect(ends.length, where).toBe(events.filter((e) => e.type === 'step/start').length);
          if (marked)
            expect(
              ends.filter((e) => e.type === 'step/end' && e.data.startSeq === 1),
              where,
            ).toMatchObject([{ data: { end: 'interrupted' } }]);
          const counts = resultsPerCall(events);
          expect(
            calls.map((_, i) => counts.get(`c${i}`)),
            where,
          ).toEqual(calls.map(() => 1));
          expect(
            last.calls.map((c) => c.id),
            where,
          ).toEqual(calls.map((_, i) => `c${i}`));
          for (const [i, c] of calls.entries()) {
            const outcome = last.calls[i]?.outcome;
            if (c.answered) expect(outcome, where).toEqual(originalOutcome);
            else if (!idempotent(c.kind)) expect(outcome, where).toMatchObject({ status: 'error', error: { code: 'TOOL_INTERRUPTED' } });
            else if (c.kind === 'confirm-rejected') expect(outcome, where).toMatchObject({ status: 'denied' });
            else expect(outcome, where).toMatchObject({ status: 'ok', output: { ran: toolOf(c.kind) } });
          }
          // A call that is not idempotent never runs again, and is never put to a person again.
          expect(
            runs.bodies.filter((b) => b.startsWith('note:') || b.startsWith('deploy:')),
            where,
          ).toEqual([]);
          expect(
            runs.asked.filter((a) => a.startsWith('deploy:')),
            where,
          ).toEqual([]);
          // Calls answered before the crash are left alone.
          const answered = calls.flatMap((c, i) => (c.answered ? [`c${i}`] : []));
          expect(
            runs.bodies.filter((b) => answered.includes(b.split(':')[1] ?? '')),
            where,
          ).toEqual([]);
        }
      }),
      { numRuns: 16 },
    );
  }, 600_000);
});
