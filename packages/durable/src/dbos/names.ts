/** The default name of a DBOS session definition: it prefixes its workflows, queues and workflow ids. */
export const defaultSessionName = 'dsh-session';

/** The default DBOS application name of workers and clients. */
export const defaultAppName = 'dsh';

/** The default polling interval of queues and results, in ms. */
export const defaultPollingIntervalMs = 100;

/** The workflows of one session definition. */
export type WorkflowKind = 'step' | 'run' | 'host' | 'answer';

/** Workflow attributes (a JSONB column DBOS filters with `@>`): how `approve` finds a session's workflows. */
export const attribute = {
  session: 'dsh.session',
  kind: 'dsh.kind',
  /** The call ids of a step workflow. */
  calls: 'dsh.calls',
} as const;

/** The registered name of one of a definition's workflows: `<name>.<kind>`. */
export function workflowName(name: string, kind: WorkflowKind): string {
  return `${name}.${kind}`;
}

/** The queue of a definition's session workflows, partitioned by session id (one at a time per session). */
export function sessionQueueName(name: string): string {
  return name;
}

/** The queue of answer workflows: apart from the sessions' queue, whose partition the waiting step holds. */
export function answerQueueName(name: string): string {
  return `${name}.answers`;
}

/**
 * A workflow id, `<name>/<session>/<kind>[/<id>]` with each part URI-encoded so
 * no two (session, id) pairs meet. DBOS workflow ids are idempotency keys:
 * the same step id of a session is the same workflow.
 */
export function workflowId(name: string, session: string, kind: WorkflowKind, id?: string): string {
  const parts = id === undefined ? [name, session, kind] : [name, session, kind, id];
  return parts.map(encodeURIComponent).join('/');
}
