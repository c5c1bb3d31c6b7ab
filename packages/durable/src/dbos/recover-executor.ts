import { checkId, checkReachable, type SessionClient } from './client.js';
import { engineError } from './engine-errors.js';
import { workflowName } from './names.js';

/**
 * Hands the unfinished workflows of a dead worker's executor id to the
 * workers that run now: each goes back on the queue it came from (a session
 * step keeps its session's place, one at a time as before) and replays from
 * its checkpoints on whichever worker takes it. For a worker that will not
 * come back under its own executor id (a pod that got a new name): without
 * this its sessions stay `PENDING`, holding their queue partitions, for good.
 * Call it only for an executor that is gone: a live one would run them twice.
 * Resolves with the ids of the workflows handed over.
 */
export async function recoverExecutor(client: SessionClient, executorId: string): Promise<readonly string[]> {
  checkId('executor id', executorId);
  await checkReachable(client);
  try {
    const stranded = await client.dbos.listWorkflows({
      executorId,
      status: ['PENDING'],
      workflowName: (['step', 'run', 'host', 'answer'] as const).map((kind) => workflowName(client.name, kind)),
      sortDesc: false,
      loadInput: false,
      loadOutput: false,
    });
    for (const workflow of stranded) {
      await client.dbos.resumeWorkflow(workflow.workflowID, workflow.queueName === undefined ? {} : { queueName: workflow.queueName });
    }
    return stranded.map((workflow) => workflow.workflowID);
  } catch (error) {
    throw engineError(error, `recovering the workflows of executor "${executorId}"`);
  }
}
