import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestHost } from './testing/index.js';
import { defineTool } from './tool.js';

/** A host with an internal tool `ask_user` and a model-facing tool `outer` that calls it. */
async function hostWithInternalTool() {
  const t = await createTestHost();
  const ran: string[] = [];
  t.host.tools.register(
    defineTool({
      name: 'ask_user',
      description: 'Asked by other tools only.',
      input: z.object({ what: z.string() }),
      internal: true,
      execute: (args) => {
        ran.push(args.what);
        return 'yes';
      },
    }),
  );
  t.host.tools.register(
    defineTool({
      name: 'outer',
      description: 'Asks through ask_user.',
      input: z.object({}),
      execute: async (_args, ctx) => {
        const answer = await ctx.tools.execute({ id: `${ctx.call.id}:ask`, name: 'ask_user', args: { what: 'from outer' } });
        return answer.status === 'ok' ? answer.output : answer.status;
      },
    }),
  );
  return { t, ran };
}

describe('an internal tool', () => {
  it('is left out of the schemas the model is given', async () => {
    const { t } = await hostWithInternalTool();
    expect(t.host.tools.schemas().map((s) => s.name)).toEqual(['outer']);
  });

  it('answers a tool that calls it through the pipeline', async () => {
    const { t, ran } = await hostWithInternalTool();
    expect(await t.call('outer')).toMatchObject({ status: 'ok', output: 'yes' });
    expect(ran).toEqual(['from outer']);
  });

  it('does not exist for the model: a direct call is UNKNOWN_TOOL, its body never runs, and it is not listed', async () => {
    const { t, ran } = await hostWithInternalTool();
    const outcome = await t.call('ask_user', { what: 'from the model' });
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'UNKNOWN_TOOL' } });
    expect(outcome.status === 'error' && outcome.error.message).toBe('there is no tool named "ask_user"; the tools are: outer');
    expect(ran).toEqual([]);
  });
});
