import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ApprovalProvider,
  type Decision,
  defineTool,
  freezeJson,
  type Outcome,
  type PostExecuteVerdict,
  type PreExecuteUpdate,
  z,
} from './index.js';
import { createTestHost, logProblems } from './testing/index.js';

// Random compositions of taps, guards, approvals and failures; every run checks the
// contract's invariants 1-3, 5-7 and 10-12 on the real pipeline.

const preBehaviours = ['none', 'allow', 'deny', 'ask', 'throw', 'rewrite', 'rewrite-invalid', 'async-allow'] as const;
const approvals = ['absent', 'allowed-once', 'rejected', 'throws', 'late'] as const;
const guardBehaviours = ['abstain', 'deny', 'throw', 'async-abstain'] as const;
const postBehaviours = ['accept', 'block', 'replace', 'context', 'throw'] as const;
const toolKinds = ['ok', 'parallel', 'throws', 'slow-parallel', 'unknown', 'invalid-args', 'bad-output'] as const;

const composition = fc.record({
  calls: fc.array(fc.constantFrom(...toolKinds), { minLength: 1, maxLength: 6 }),
  pre: fc.array(fc.array(fc.constantFrom(...preBehaviours), { minLength: 1, maxLength: 6 }), { maxLength: 3 }),
  approval: fc.array(fc.constantFrom(...approvals), { minLength: 1, maxLength: 6 }),
  guards: fc.array(fc.array(fc.constantFrom(...guardBehaviours), { minLength: 1, maxLength: 6 }), { maxLength: 2 }),
  post: fc.array(fc.array(fc.constantFrom(...postBehaviours), { minLength: 1, maxLength: 6 }), { maxLength: 2 }),
  observers: fc.array(fc.boolean(), { maxLength: 2 }),
  defaultDecision: fc.constantFrom<Decision>('allow', 'ask', 'deny'),
  abortAfterMs: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
});

/** Picks call `index`'s behaviour from a per-tap list, cycling. */
const pick = <T>(list: readonly T[], index: number): T => list[index % list.length] as T;

describe('pipeline invariants under random compositions', () => {
  it('hold for every generated composition', async () => {
    await fc.assert(
      fc.asyncProperty(composition, async (c) => {
        const indexOf = (id: string) => Number(id.slice(1));
        const bodyRuns: string[] = [];
        const bodyBeforeCall: string[] = [];
        const preOrder: string[] = [];
        const finalDecision = new Map<string, Decision>();
        const approvalAnswer = new Map<string, string>();
        const guardDenied = new Set<string>();
        const observed = new Map<string, Outcome[]>();
        const answerOf = (id: string) => pick(c.approval, indexOf(id));
        const approval: ApprovalProvider | undefined =
          c.approval[0] === 'absent'
            ? undefined
            : (request) => {
                const answer = answerOf(request.call.id);
                approvalAnswer.set(request.call.id, answer);
                if (answer === 'throws') throw new Error('provider bug');
                if (answer === 'late') return new Promise(() => undefined);
                return answer === 'absent' ? 'unavailable' : answer;
              };
        const t = await createTestHost({
          defaultDecision: c.defaultDecision,
          approvalTimeoutMs: 5,
          tapTimeoutMs: 50,
          abortGraceMs: 5,
          maxParallel: 2,
          ...(approval ? { approval } : {}),
        });
        const body = (kind: string) => async (args: { text: string }, ctx: { call: { id: string } }) => {
          if (!t.host.events.list().some((e) => e.type === 'tool/call' && e.call === ctx.call.id)) bodyBeforeCall.push(ctx.call.id);
          bodyRuns.push(ctx.call.id);
          if (kind === 'slow-parallel') await new Promise((r) => setTimeout(r, 2));
          if (kind === 'throws') throw new Error('tool failed');
          if (kind === 'bad-output') return { fn: () => 1 } as unknown as { text: string };
          return { text: args.text };
        };
        for (const kind of ['ok', 'parallel', 'throws', 'slow-parallel', 'bad-output']) {
          t.host.tools.register(
            defineTool({
              name: kind,
              description: kind,
              parallel: kind === 'parallel' || kind === 'slow-parallel',
              input: z.object({ text: z.string() }),
              execute: body(kind),
            }),
          );
        }
        c.pre.forEach((behaviours, tapIndex) => {
          t.host.hooks.preExecute.tap(`pre-${tapIndex}`, (state): PreExecuteUpdate | undefined | Promise<PreExecuteUpdate> => {
            if (tapIndex === 0) preOrder.push(state.call.id);
            switch (pick(behaviours, indexOf(state.call.id))) {
              case 'allow':
                return { decision: 'allow' };
              case 'deny':
                return { decision: 'deny', reason: 'random deny' };
              case 'ask':
                return { decision: 'ask' };
              case 'throw':
                throw new Error('tap bug');
              case 'rewrite':
                return { args: { text: 'rewritten' } };
              case 'rewrite-invalid':
                return { args: { text: 1 } };
              case 'async-allow':
                return Promise.resolve({ decision: 'allow' });
              default:
                return undefined;
            }
          });
        });
        if (c.pre.length === 0) {
          t.host.hooks.preExecute.tap('order', (state) => void preOrder.push(state.call.id));
        }
        t.host.hooks.preExecute.tap(
          { name: 'final-decision', stage: 1000 },
          (state) => void finalDecision.set(state.call.id, state.decision),
        );
        c.guards.forEach((behaviours, guardIndex) => {
          t.host.guards.register({
            id: `guard-${guardIndex}`,
            check: (input) => {
              const behaviour = pick(behaviours, indexOf(input.call.id));
              if (behaviour === 'deny' || behaviour === 'throw') guardDenied.add(input.call.id);
              if (behaviour === 'deny') return { deny: 'random guard deny' };
              if (behaviour === 'throw') throw new Error('guard bug');
              return behaviour === 'async-abstain' ? Promise.resolve('abstain') : 'abstain';
            },
          });
        });
        c.post.forEach((behaviours, tapIndex) => {
          t.host.hooks.postExecute.tap(`post-${tapIndex}`, (state): PostExecuteVerdict | undefined => {
            switch (pick(behaviours, indexOf(state.call.id))) {
              case 'block':
                return { block: 'random block' };
              case 'replace':
                return { replaceOutput: { replaced: true } };
              case 'context':
                return { addContext: `context from ${state.call.id}` };
              case 'throw':
                throw new Error('post bug');
              default:
                return undefined;
            }
          });
        });
        c.observers.forEach((throws, i) => {
          t.host.hooks.result.tap(`observer-${i}`, (outcome, info) => {
            observed.set(info.call.id, [...(observed.get(info.call.id) ?? []), outcome]);
            if (throws) throw new Error('observer bug');
          });
        });

        const calls = c.calls.map((kind, i) => ({
          id: `c${i}`,
          name: kind === 'unknown' ? 'no-such-tool' : kind === 'invalid-args' ? 'ok' : kind,
          args: kind === 'invalid-args' ? { text: 42 } : { text: `t${i}` },
        }));
        const controller = new AbortController();
        if (c.abortAfterMs !== undefined) setTimeout(() => controller.abort(), c.abortAfterMs);
        // Invariant 6: runStep resolves; it never rejects.
        const result = await t.host.runStep({ calls }, { signal: controller.signal });
        const events = t.host.events.list();

        // Invariants 1 and 10: one tool/call then one tool/result per call; seq without gaps.
        expect(logProblems(events)).toEqual([]);
        expect(result.results.map((r) => r.id)).toEqual(calls.map((call) => call.id));
        // Invariant 11: policy stages and results in the model's order.
        expect(preOrder).toEqual([...preOrder].sort((a, b) => indexOf(a) - indexOf(b)));
        expect(events.filter((e) => e.type === 'tool/result').map((e) => e.call)).toEqual(calls.map((call) => call.id));
        // Invariant 12: no body before its tool/call event.
        expect(bodyBeforeCall).toEqual([]);

        for (const { id, outcome } of result.results) {
          const ran = bodyRuns.includes(id);
          const decision = finalDecision.get(id);
          // Invariant 2: the body ran only if allowed (or asked and allowed-once) and no guard denied.
          if (ran) {
            expect(decision === 'allow' || (decision === 'ask' && approvalAnswer.get(id) === 'allowed-once')).toBe(true);
            expect(guardDenied.has(id)).toBe(false);
          }
          // Invariant 3: absent, throwing or late approval denies and never runs the body.
          const reachedApproval = outcome.stage !== 'validate' && outcome.stage !== 'pre-execute';
          const cancelled = outcome.status === 'error' && outcome.error.code === 'ABORTED_BEFORE_DISPATCH';
          if (decision === 'ask' && reachedApproval && !cancelled && approvalAnswer.get(id) !== 'allowed-once') {
            expect(outcome.status).toBe('denied');
            expect(ran).toBe(false);
          }
          if (outcome.status === 'denied') expect(ran).toBe(false);
          // Invariant 5: observers saw exactly the event's outcome, frozen and lossless JSON.
          const event = events.find((e) => e.type === 'tool/result' && e.call === id);
          expect(event?.type === 'tool/result' && event.data.outcome).toBe(outcome);
          for (const seen of observed.get(id) ?? []) expect(seen).toBe(outcome);
          expect(Object.isFrozen(outcome)).toBe(true);
          expect(freezeJson(outcome)).toBeUndefined();
        }
        // The step is bracketed: one step/start first, with the ids in the model's order, and one step/end
        // after every other event of the step, with each call's status and how the step ended.
        const ends = events.filter((e) => e.type === 'step/end');
        expect(events.filter((e) => e.type === 'step/start')).toHaveLength(1);
        expect(events[0]).toMatchObject({ type: 'step/start', data: { calls: calls.map((call) => call.id) } });
        expect(ends).toHaveLength(1);
        const end = ends[0];
        expect(end?.type === 'step/end' && end.data.statuses).toEqual(result.results.map((r) => r.outcome.status));
        expect(end?.type === 'step/end' && end.data.startSeq).toBe(events[0]?.seq);
        // Aborted only when the signal fired before the step ended (it may fire after runStep resolved).
        expect(controller.signal.aborted ? ['completed', 'aborted'] : ['completed']).toContain(end?.type === 'step/end' && end.data.end);
        const endAt = events.indexOf(end as (typeof events)[number]);
        expect(events.slice(endAt + 1).every((e) => e.type === 'tool/late-settlement')).toBe(true);
        // Invariant 7: one context message after every result, holding the context in call order.
        const contextEvents = events.filter((e) => e.type === 'context/message');
        if (result.context === undefined) {
          expect(contextEvents).toEqual([]);
        } else {
          expect(contextEvents).toHaveLength(1);
          expect(events[endAt - 1]?.type).toBe('context/message');
          const order = result.context.parts.map((p) => indexOf(p.call));
          expect(order).toEqual([...order].sort((a, b) => a - b));
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
