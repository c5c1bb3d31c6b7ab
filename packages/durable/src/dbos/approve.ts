import { Error as DBOSErrors } from '@dbos-inc/dbos-sdk';
import { type AnswerReceipt, type ApprovalWord, approvalKey, approvalReplyOf } from '../durable-approval.js';
import { DurableError, DurableErrorCode } from '../errors.js';
import { checkId, checkReachable, type SessionClient } from './client.js';
import type { WaitState } from './dbos-durable.js';
import { engineError } from './engine-errors.js';
import { answerQueueName, attribute, workflowId, workflowName } from './names.js';

/**
 * The workflow that holds (or will ask) `callId`: the session's newest step
 * listing it, else the session's oldest unfinished run (the one holding the
 * session now, or next: runs of one session go one at a time, in order).
 */
async function holderOf(client: SessionClient, session: string, callId: string): Promise<string | undefined> {
  const noLoad = { loadInput: false, loadOutput: false } as const;
  const [step] = await client.dbos.listWorkflows({
    attributes: { [attribute.session]: session, [attribute.calls]: [callId] },
    sortDesc: true,
    limit: 1,
    ...noLoad,
  });
  if (step !== undefined) return step.workflowID;
  const [run] = await client.dbos.listWorkflows({
    attributes: { [attribute.session]: session, [attribute.kind]: 'run' },
    status: ['PENDING', 'ENQUEUED'],
    sortDesc: false,
    limit: 1,
    ...noLoad,
  });
  return run?.workflowID;
}

/**
 * Answers the approval a session's call waits on (`allow`/`deny` or a core
 * answer), from any process that reaches the system database, whether or
 * not a worker runs now. The answer is an `<name>.answer` workflow whose id
 * is the session's and the call's: the first answer creates it, a later one
 * finds it taken and gets `already-answered`, so a deny cannot be overturned,
 * not even by two answers racing. The answer workflow `DBOS.send`s the
 * reply to the waiting workflow under the topic `approval <call id>`; the
 * workflow's `DBOS.recv` journals it, so a restart replays the same answer.
 * A call no step of the session lists, in a session with no unfinished run,
 * is `INVALID_INPUT`.
 */
export async function approve(
  client: SessionClient,
  session: string,
  callId: string,
  word: ApprovalWord,
  message?: string,
): Promise<AnswerReceipt> {
  checkId('session', session);
  checkId('call id', callId);
  const reply = approvalReplyOf(word, message);
  await checkReachable(client);
  try {
    const holder = await holderOf(client, session, callId);
    if (holder === undefined) {
      throw new DurableError(
        DurableErrorCode.INVALID_INPUT,
        `no step of session "${session}" lists call "${callId}", and no program of that session is running`,
      );
    }
    const key = approvalKey(callId);
    const wait = await client.dbos.getEvent<WaitState>(holder, key, { timeoutSeconds: 0 });
    if (wait?.state === 'answered' || wait?.state === 'timeout') return { status: 'already-answered' };
    try {
      await client.dbos.enqueue(
        {
          queueName: answerQueueName(client.name),
          workflowName: workflowName(client.name, 'answer'),
          workflowID: workflowId(client.name, session, 'answer', callId),
          workflowIDReusePolicy: 'reject',
          attributes: { [attribute.session]: session, [attribute.kind]: 'answer' },
        },
        holder,
        key,
        reply,
      );
    } catch (error) {
      if (DBOSErrors.isWorkflowIDInUseError(error)) return { status: 'already-answered' };
      throw error;
    }
    return { status: wait?.state === 'waiting' ? 'delivered' : 'kept' };
  } catch (error) {
    throw engineError(error, 'answering the approval');
  }
}
