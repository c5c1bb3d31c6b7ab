import { describe, expect, it } from 'vitest';
import { describeEvent } from './describe-event.js';
import { type LoggedEvent, parentOfId, viewOf } from './session-view.js';

let seq = 0;
const ev = (type: string, call: string | undefined, data: unknown): LoggedEvent => {
  seq += 1;
  return {
    seq,
    at: `2026-01-01T00:00:${String(seq).padStart(2, '0')}.000Z`,
    session: 's',
    type,
    ...(call === undefined ? {} : { call }),
    data,
  };
};
const call = (id: string, name = 'read', parent?: string): LoggedEvent =>
  ev('tool/call', id, { name, args: {}, ...(parent ? { parent } : {}) });
const result = (id: string): LoggedEvent =>
  ev('tool/result', id, { name: 'read', outcome: { status: 'ok', stage: 'execute', output: {} } });

describe('a resumed session', () => {
  it('shows a call a resume ran again as one card with its one result, and says what the resume did', () => {
    const resumed = [
      call('c1', 'read'),
      call('c2', 'bash'),
      ev('session/resumed', undefined, { afterSeq: 2, interrupted: 2 }),
      ev('tool/interrupted', 'c1', { name: 'read', callSeq: 1, resolution: 'rerun', reason: 'idempotent' }),
      call('c1', 'read'),
      result('c1'),
      ev('tool/interrupted', 'c2', { name: 'bash', callSeq: 2, resolution: 'interrupted', reason: 'not-idempotent' }),
      ev('tool/result', 'c2', {
        name: 'bash',
        outcome: { status: 'error', stage: 'execute', error: { code: 'TOOL_INTERRUPTED', message: 'outcome unknown' } },
      }),
    ];
    const view = viewOf(resumed);
    expect(view.steps.map((s) => s.calls.map((c) => c.id))).toEqual([['c1', 'c2']]);
    expect(view.calls.get('c1')?.outcome?.status).toBe('ok');
    expect(view.calls.get('c2')?.outcome).toMatchObject({ status: 'error', error: { code: 'TOOL_INTERRUPTED' } });
    expect(describeEvent(resumed[2] as LoggedEvent).text).toBe('session resumed after event 2: 2 calls had no result');
    expect(describeEvent(resumed[3] as LoggedEvent).text).toBe(
      'interrupted by a crash (its call is event 1): read is idempotent, so the resume runs it again',
    );
    expect(describeEvent(resumed[6] as LoggedEvent).text).toBe(
      'interrupted by a crash (its call is event 2): bash ends TOOL_INTERRUPTED (not idempotent): outcome unknown, verify before retrying',
    );
  });
});

describe('viewOf', () => {
  it('groups overlapping calls into one step, starts a new one when none is open, and ends one at its context message', () => {
    const view = viewOf([
      ev('permissions/problem', undefined, { code: 'X', message: 'early' }),
      call('a'),
      call('b'),
      result('a'),
      result('b'),
      call('c'),
      result('c'),
      ev('context/message', undefined, { text: 'note', parts: [] }),
      call('d'),
      result('d'),
    ]);
    expect(view.preamble.map((e) => e.type)).toEqual(['permissions/problem']);
    expect(view.steps.map((s) => s.calls.map((c) => c.id))).toEqual([['a', 'b'], ['c'], ['d']]);
    expect(view.steps[1]?.notes.map((n) => n.type)).toEqual(['context/message']);
  });

  it('puts sub-calls under their parent, by the tool/call parent or by the id’s shape, nested as deep as they go', () => {
    const view = viewOf([
      call('p', 'run_code'),
      call('p:code:0', 'task'),
      call('p:code:0:agent:0', 'read'),
      result('p:code:0:agent:0'),
      result('p:code:0'),
      call('odd-id', 'read', 'p'),
      result('odd-id'),
      result('p'),
    ]);
    expect(view.steps).toHaveLength(1);
    const p = view.steps[0]?.calls[0];
    expect(p?.children.map((c) => c.id)).toEqual(['p:code:0', 'odd-id']);
    expect(p?.children[0]?.children.map((c) => c.id)).toEqual(['p:code:0:agent:0']);
    expect(parentOfId('x:agent:12')).toBe('x');
    expect(parentOfId('x:other:1')).toBeUndefined();
  });

  it('starts a step at each model turn and keeps the turn’s calls together even when they ran one after another', () => {
    const view = viewOf([
      ev('agent/turn', undefined, { turn: 1, stop: 'tool-use', text: 'reading', calls: [] }),
      call('a'),
      result('a'),
      call('b'),
      result('b'),
      ev('agent/turn', undefined, { turn: 2, stop: 'end', text: 'done', calls: [] }),
    ]);
    expect(view.steps.map((s) => [s.turn?.type, s.calls.map((c) => c.id)])).toEqual([
      ['agent/turn', ['a', 'b']],
      ['agent/turn', []],
    ]);
  });

  it('groups calls by the step/start that lists them, with the agent’s turn, and ends a step at its step/end', () => {
    const view = viewOf([
      ev('agent/turn', undefined, { turn: 1, stop: 'tool-use', text: 'reading', calls: [] }),
      ev('step/start', undefined, { calls: ['a', 'b'] }),
      call('a'),
      result('a'),
      call('b'),
      result('b'),
      ev('step/end', undefined, { startSeq: seq - 4, end: 'completed', statuses: ['ok', 'ok'] }),
      ev('step/start', undefined, { calls: ['a'] }),
      call('a'),
      result('a'),
      ev('step/end', undefined, { startSeq: seq - 2, end: 'aborted', statuses: ['ok'] }),
    ]);
    expect(view.stepsMarked).toBe(true);
    expect(view.steps.map((s) => [s.turn?.type, s.calls.map((c) => c.id), s.end?.type])).toEqual([
      ['agent/turn', ['a', 'b'], 'step/end'],
      [undefined, ['a'], 'step/end'],
    ]);
    expect(view.counts.calls).toBe(3);
    expect(view.steps.every((s) => s.notes.length === 0)).toBe(true);
  });

  it('tells two steps apart by their lists even when their calls interleave, and keeps a duplicate id as two cards', () => {
    const first = seq + 1;
    const view = viewOf([
      ev('step/start', undefined, { calls: ['x', 'x'] }),
      ev('step/start', undefined, { calls: ['y'] }),
      call('x'),
      call('y'),
      call('x'),
      result('x'),
      result('y'),
      result('x'),
      ev('step/end', undefined, { startSeq: first + 1, end: 'completed', statuses: ['ok'] }),
      ev('step/end', undefined, { startSeq: first, end: 'completed', statuses: ['ok', 'error'] }),
    ]);
    expect(view.steps.map((s) => s.calls.length)).toEqual([2, 1]);
    expect(view.steps[1]?.calls[0]?.id).toBe('y');
  });

  it('puts a subagent’s nested step events with the call it ran under, not among the steps', () => {
    const view = viewOf([
      ev('step/start', undefined, { calls: ['t'] }),
      call('t', 'task'),
      ev('step/start', undefined, { calls: ['t:agent:0'], parent: 't' }),
      call('t:agent:0', 'read', 't'),
      result('t:agent:0'),
      ev('step/end', undefined, { startSeq: seq - 3, end: 'completed', statuses: ['ok'], parent: 't' }),
      result('t'),
      ev('step/end', undefined, { startSeq: seq - 6, end: 'completed', statuses: ['ok'] }),
    ]);
    expect(view.steps).toHaveLength(1);
    expect(view.calls.get('t')?.events.map((e) => e.type)).toEqual(['tool/call', 'step/start', 'step/end', 'tool/result']);
    expect(view.calls.get('t')?.children.map((c) => c.id)).toEqual(['t:agent:0']);
  });

  it('keeps events of calls it never saw start, and results it cannot read, without throwing', () => {
    const view = viewOf([call('a'), ev('tool/result', 'a', { outcome: 'weird' }), ev('tool/result', 'ghost', { x: 1 })]);
    const a = view.calls.get('a');
    expect(a?.outcome).toBeUndefined();
    expect(a?.result).toEqual({ outcome: 'weird' });
    expect(view.steps[0]?.notes.map((n) => n.call)).toEqual(['ghost']);
  });
});

describe('describeEvent', () => {
  it('says known events in words and shows unknown ones, or known ones with other fields, raw', () => {
    expect(describeEvent(ev('approval/answer', 'a', { answer: 'allowed', source: 'remembered', elapsedMs: 3, grant: 'g-1' }))).toEqual({
      text: 'approval answered allowed by a remembered grant after 3 ms (grant g-1)',
      raw: false,
    });
    expect(describeEvent(ev('mcp/connected', undefined, { server: 'github' }))).toEqual({
      text: 'mcp/connected {"server":"github"}',
      raw: true,
    });
    expect(describeEvent(ev('approval/answer', 'a', { verdict: 1 })).raw).toBe(true);
    const connect = { connection: 1, protocol: 'http-connect', host: 'registry.npmjs.org', port: 443, bytesUp: 517, startedAt: '' };
    expect(
      describeEvent(
        ev('network/connect', 'b', {
          ...connect,
          decision: 'allow',
          decidedBy: 'allowedDomains *.npmjs.org',
          bytesDown: 18342,
          durationMs: 412,
        }),
      ),
    ).toEqual({
      text: 'network: registry.npmjs.org:443 opened (http-connect, decided by allowedDomains *.npmjs.org), 517 B up, 18342 B down in 412 ms',
      raw: false,
    });
    expect(
      describeEvent(
        ev('network/connect', 'b', {
          ...connect,
          decision: 'deny',
          decidedBy: 'approval',
          code: 'EGRESS_DENIED',
          reason: 'rejected',
          bytesDown: 0,
          durationMs: 3,
        }),
      ).text,
    ).toBe('network: registry.npmjs.org:443 refused (http-connect, decided by approval): EGRESS_DENIED (rejected)');
    expect(describeEvent(ev('step/start', undefined, { calls: ['a', 'b'], parent: 't' })).text).toBe(
      "subagent's step (under t) of 2 calls: a, b",
    );
    expect(
      describeEvent(
        ev('step/end', undefined, {
          startSeq: 4,
          end: 'failed',
          statuses: ['ok', null],
          error: { code: 'INVALID_STEP', message: 'broke' },
        }),
      ).text,
    ).toBe('step failed (1 ok, 1 none): INVALID_STEP broke (step/start is event 4)');
    for (const data of [null, [], 'text', 42, { by: 'not-a-list', decision: 7 }]) {
      for (const type of ['permissions/decision', 'hook/result', 'todo/write', 'tool/result', 'agent/turn', 'step/start', 'step/end']) {
        expect(() => describeEvent(ev(type, 'a', data))).not.toThrow();
      }
    }
    expect(describeEvent(ev('future/x', undefined, { long: 'y'.repeat(50) }), 20).text).toBe(`future/x {"long":"${'y'.repeat(10)}…`);
  });
});
