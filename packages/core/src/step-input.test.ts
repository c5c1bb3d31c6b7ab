import { describe, expect, it } from 'vitest';
import { echoTool } from './__fixtures__/tools.js';
import type { Step } from './index.js';
import { createTestHost, logProblems } from './testing/index.js';

describe('malformed steps and calls', () => {
  it('refuses a step with no calls with EMPTY_STEP, and a non-step with INVALID_STEP, without throwing', async () => {
    const t = await createTestHost();
    expect(await t.host.runStep({ calls: [] })).toMatchObject({ results: [], error: { code: 'EMPTY_STEP' } });
    expect(await t.host.runStep(null as unknown as Step)).toMatchObject({ results: [], error: { code: 'INVALID_STEP' } });
    expect(await t.host.runStep({ calls: 'x' } as unknown as Step)).toMatchObject({ error: { code: 'INVALID_STEP' } });
    expect(t.host.events.list()).toEqual([]);
  });

  it('resolves with INVALID_STEP, never rejects, when reading the step throws', async () => {
    const t = await createTestHost();
    const hostile = {
      get calls(): never {
        throw new Error('no calls for you');
      },
    } as unknown as Step;
    const result = await t.host.runStep(hostile);
    expect(result).toMatchObject({ results: [], error: { code: 'INVALID_STEP' } });
    expect(result.error?.message).toContain('no calls for you');
  });

  it('refuses every call of a step that shares an id with another, running none of them', async () => {
    const runs: string[] = [];
    const t = await createTestHost();
    t.host.tools.register(echoTool(runs));
    const { results } = await t.host.runStep({
      calls: [
        { id: 'same', name: 'echo', args: { text: '1' } },
        { id: 'other', name: 'echo', args: { text: '2' } },
        { id: 'same', name: 'echo', args: { text: '3' } },
      ],
    });
    expect(results.map((r) => r.outcome.status === 'error' && r.outcome.error.code)).toEqual([
      'DUPLICATE_CALL_ID',
      false,
      'DUPLICATE_CALL_ID',
    ]);
    expect(runs).toEqual(['other:2']);
    expect(t.host.events.list().filter((e) => e.type === 'tool/result')).toHaveLength(3);
  });

  it('gives a call without an id, name or arguments its own error and still one result', async () => {
    const t = await createTestHost();
    t.host.tools.register(echoTool());
    const { results } = await t.host.runStep({
      calls: [{ name: 'echo', args: {} }, { id: 'x', args: {} }, { id: 'y', name: 'echo' }, 7] as unknown as Step['calls'],
    });
    expect(results.map((r) => r.id)).toEqual(['#0', 'x', 'y', '#3']);
    expect(results.map((r) => r.outcome.status === 'error' && r.outcome.error.code)).toEqual([
      'INVALID_CALL',
      'INVALID_CALL',
      'INVALID_ARGS',
      'INVALID_CALL',
    ]);
    expect(logProblems(t.host.events.list())).toEqual([]);
  });
});
