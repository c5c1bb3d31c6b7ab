import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ApprovalReply, JsonValue, StepResult } from '@deepseek-ai/dsh-core';
import { DurableError, DurableErrorCode } from '../errors.js';
import { closing, isStepInput, type OpenedSession, openSessionHost, type SessionHostOptions, type StepInput } from '../session-setup.js';
import { dbosDurable } from './dbos-durable.js';
import { answerQueueName, attribute, defaultSessionName, sessionQueueName, workflowId, workflowName } from './names.js';

/** Options of {@link dshSessionWorkflows}. */
export interface DshSessionWorkflowsOptions extends SessionHostOptions {
  /** Prefixes the workflows, queues and workflow ids: `dsh-session` by default. Clients must name the same. */
  readonly name?: string;
}

/** A registered session definition, to hand to `launchDbosWorker`. */
export interface DshSessionWorkflows {
  readonly name: string;
  /** The queue of session workflows, partitioned by session id with one running at a time per session. */
  readonly queueName: string;
  /** The queue of answer workflows (one per answered call). */
  readonly answerQueueName: string;
}

/**
 * Registers a dsh session's DBOS workflows; call it before `DBOS.launch`
 * (`launchDbosWorker` does that), once per name and process:
 * - `<name>.step` (session, `{ calls }`) → the `StepResult` of `host.runStep`;
 * - `<name>.run` (session, input) → what `options.run` returns;
 * - `<name>.host`: the session's host binding, a child workflow whose id is
 *   the session's and whose result is the first `hostId` that ran it (workflow
 *   ids are idempotency keys: the first writer wins, for good);
 * - `<name>.answer`: one per answered call, sending the answer to the waiting
 *   workflow (its id makes the first answer the only one).
 * Every tool body and model turn is a `DBOS.runStep`, every `ask` a `DBOS.recv`.
 */
export function dshSessionWorkflows(options: DshSessionWorkflowsOptions): DshSessionWorkflows {
  const name = options.name ?? defaultSessionName;
  if (typeof options.hostId !== 'string' || options.hostId === '') {
    throw new DurableError(DurableErrorCode.INVALID_OPTIONS, 'hostId must be a non-empty string');
  }
  if (typeof options.createHost !== 'function') throw new DurableError(DurableErrorCode.INVALID_OPTIONS, 'createHost must be a function');
  if (options.logDir !== undefined && (typeof options.logDir !== 'string' || options.logDir === '')) {
    throw new DurableError(DurableErrorCode.INVALID_OPTIONS, 'logDir must be a non-empty string (a folder for the session logs)');
  }
  const program = options.run;

  const bindHost = DBOS.registerWorkflow(async (hostId: string) => hostId, { name: workflowName(name, 'host') });

  async function openSession(session: string): Promise<OpenedSession> {
    const binding = await DBOS.startWorkflow(bindHost, {
      workflowID: workflowId(name, session, 'host'),
      workflowAttributes: { [attribute.session]: session, [attribute.kind]: 'host' },
    })(options.hostId);
    const bound = await binding.getResult();
    if (bound !== options.hostId) {
      throw new DurableError(
        DurableErrorCode.SESSION_HOST_MISMATCH,
        `session "${session}" belongs to host "${bound}"; this worker is host "${options.hostId}"`,
      );
    }
    return openSessionHost(session, dbosDurable(), options);
  }

  DBOS.registerWorkflow(
    async (session: string, input: StepInput): Promise<StepResult> => {
      if (!isStepInput(input)) throw new DurableError(DurableErrorCode.INVALID_INPUT, 'step: expected { calls: [{ id, name, args }] }');
      return closing(await openSession(session), ({ host }) => host.runStep({ calls: input.calls }));
    },
    { name: workflowName(name, 'step') },
  );

  DBOS.registerWorkflow(
    async (session: string, input: JsonValue): Promise<JsonValue> => {
      if (program === undefined) throw new DurableError(DurableErrorCode.INVALID_INPUT, 'run: this session definition has no program');
      return closing(await openSession(session), (run) => program(run, input));
    },
    { name: workflowName(name, 'run') },
  );

  DBOS.registerWorkflow(
    async (target: string, key: string, reply: ApprovalReply): Promise<ApprovalReply> => {
      // Keyed by the wait's key: even a replayed send cannot post a second message.
      await DBOS.send(target, reply, key, key);
      return reply;
    },
    { name: workflowName(name, 'answer') },
  );

  return { name, queueName: sessionQueueName(name), answerQueueName: answerQueueName(name) };
}
