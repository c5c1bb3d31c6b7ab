/** What the catalog says of an event type besides its schema. */
export interface EventDoc {
  /** One line: what the event means. */
  readonly meaning: string;
  /** An example `data`; it must pass the type's schema. */
  readonly example: unknown;
}

const hook = { hook: '.claude/hooks/check.sh', event: 'PreToolUse' };

/** The meaning and an example of every event type core defines. */
export const coreEventDocs: Readonly<Record<string, EventDoc>> = {
  'tool/call': { meaning: 'A call arrived, with its arguments as sent; logged first.', example: { name: 'read', args: '{"path":"a.md"}' } },
  'tool/result': {
    meaning: "The call's one outcome, what the model reads.",
    example: { name: 'read', outcome: { status: 'ok', stage: 'execute', output: 'text' } },
  },
  'context/message': {
    meaning: "A step's added context, once, after its results.",
    example: { text: 'Run the tests.', parts: [{ call: 'c1', by: 'hooks-bridge', text: 'Run the tests.' }] },
  },
  'todo/write': {
    meaning: "A tool replaced the session's todo list.",
    example: { todos: [{ content: 'Write tests', status: 'pending' }] },
  },
  'fs/observed': { meaning: 'What a read saw of a file, for read-before-edit.', example: { state: 'absent', path: '/w/a.md' } },
  'hook/invoked': { meaning: 'An external hook script was started.', example: hook },
  'hook/result': { meaning: 'What an external hook script answered.', example: { ...hook, exitCode: 0, durationMs: 42 } },
  'tool/code-dispatch': {
    meaning: 'A run_code program called a tool; again with its status once settled.',
    example: { subCall: 'c1:code:0', name: 'read', index: 0, status: 'ok', droppedContext: 0 },
  },
  'tool/late-settlement': {
    meaning: 'A body settled after its call stopped waiting; the result stands.',
    example: { name: 'deploy', status: 'ok', elapsedMs: 95000, graceMs: 2000 },
  },
  'approval/request': {
    meaning: 'A call is put to approval, with its effective arguments.',
    example: { name: 'bash', args: { command: 'npm publish' }, reason: 'ask rule', by: 'permissions' },
  },
  'tool/interrupted': {
    meaning: 'On resume, a call left without a result: run again (idempotent) or ended TOOL_INTERRUPTED.',
    example: { name: 'bash', callSeq: 41, resolution: 'interrupted', reason: 'not-idempotent' },
  },
  'session/resumed': {
    meaning: 'A host took over the session log after its writer stopped; the resumed calls follow.',
    example: { afterSeq: 42, interrupted: 2 },
  },
  'approval/answer': {
    meaning: 'How an approval was answered, by whom, after how long.',
    example: { answer: 'allowed-once', source: 'provider', elapsedMs: 3400 },
  },
  'step/start': {
    meaning: "A step began: its calls' ids in the model's order; their tool/call events follow.",
    example: { calls: ['c1', 'c2'] },
  },
  'step/end': {
    meaning: "A step ended: how (completed, aborted, failed, interrupted) and each call's status.",
    example: { startSeq: 12, end: 'completed', statuses: ['ok', 'denied'] },
  },
};
