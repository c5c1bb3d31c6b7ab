import { type Host, z } from '@deepseek-ai/dsh-core';

/** `run/task`: what `dsh run` asked the agent, logged first, so `dsh log` can say it. */
export const RUN_TASK_EVENT = 'run/task';

/** The schema of the `run/task` event. */
export const runTaskEvent = z.object({
  task: z.string(),
  provider: z.string(),
  model: z.string().optional(),
  workspace: z.string(),
});

/** The data of a `run/task` event. */
export type RunTaskEventData = z.infer<typeof runTaskEvent>;

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'run/task': RunTaskEventData;
  }
}

/** Defines `run/task` on the host and logs it; settles once the sink holds it. */
export async function logTask(host: Host, data: RunTaskEventData): Promise<void> {
  host.events.define(RUN_TASK_EVENT, runTaskEvent, {
    meaning: 'What dsh run asked the agent: the task, the provider and model, the workspace.',
    example: { task: 'add a test for parseArgs', provider: 'deepseek', model: 'deepseek-v4-flash', workspace: '/home/alice/greeter' },
  });
  await host.events.emit(RUN_TASK_EVENT, data);
}
