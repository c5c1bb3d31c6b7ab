import { type ApprovalReply, type ApprovalRequest, DshError, type Host, z } from '@deepseek-ai/dsh-core';
import type { Answerer, AnswerInput } from './answer.js';
import type { ApprovalDesk } from './approval-desk.js';
import { InboxError, InboxErrorCode } from './errors.js';
import type { InboxEvent, SessionStore } from './session-store.js';

/** `inbox/answer`: who answered a call's approval on the inbox, and from where. */
export const inboxAnswerEvent = z.object({
  decision: z.enum(['allow-once', 'allow-always', 'deny']),
  scope: z.enum(['session', 'project']).optional(),
  rules: z.array(z.string()).optional(),
  by: z.string(),
  from: z.string(),
});

/** What the permissions plugin adds to a request: the scopes and rules an approval may be remembered as. */
interface Remember {
  readonly scopes: readonly string[];
  readonly suggestions: readonly { readonly label: string; readonly rules: readonly string[] }[];
}

/** What the inbox's provider answers: a core reply, or the permissions plugin's remembered one. */
export type InboxReply = ApprovalReply | { readonly answer: 'allowed-session' | 'allowed-project'; readonly rules?: readonly string[] };

/** Live hosts: their events stream to the store, and their approval requests wait on the desk. */
export class LiveHosts {
  readonly #byToken = new Map<string, Host>();
  readonly #hosts = new Map<string, () => void>();

  constructor(
    private readonly store: SessionStore,
    private readonly desk: ApprovalDesk,
  ) {}

  attach(host: Host, label?: string): () => void {
    if (this.#hosts.has(host.session)) {
      throw new InboxError(InboxErrorCode.ALREADY_ATTACHED, `session ${host.session} is already attached`);
    }
    try {
      host.events.define('inbox/answer', inboxAnswerEvent, {
        meaning: 'Who answered the call’s approval on the inbox, and from where.',
        example: { decision: 'allow-once', by: 'token holder', from: '127.0.0.1 (Firefox)' },
      });
    } catch (error) {
      // A host attached before (to this inbox or another) already knows the type.
      if (!(error instanceof DshError && error.code === 'DUPLICATE_EVENT_TYPE')) throw error;
    }
    const session = host.session;
    this.store.open(session, 'live', label ?? session);
    const take = (event: InboxEvent): void => {
      if (event.type === 'approval/request' && event.token !== undefined) this.#byToken.set(event.token, host);
      if (event.type === 'approval/answer' && event.call !== undefined) {
        if (event.token !== undefined) this.#byToken.delete(event.token);
        this.desk.expire(session, event.call, answerGone(event.data));
      }
      this.store.append(session, event);
    };
    for (const event of host.events.list()) take(event as InboxEvent);
    const unsubscribe = host.events.subscribe((event) => take(event as InboxEvent));
    const detach = (): void => {
      if (!this.#hosts.delete(session)) return;
      unsubscribe();
      for (const [token, h] of this.#byToken) if (h === host) this.#byToken.delete(token);
      this.store.end(session);
    };
    this.#hosts.set(session, detach);
    return detach;
  }

  detachAll(): void {
    for (const detach of [...this.#hosts.values()]) detach();
  }

  /** Core's approval provider (and the permissions plugin's prompt): waits for a person on the page. */
  readonly approval = (request: ApprovalRequest): Promise<InboxReply> => {
    const host = this.#byToken.get(request.call.token);
    if (host === undefined) {
      return Promise.resolve({ answer: 'unavailable', message: 'the inbox does not watch this session (call inbox.attach(host) first)' });
    }
    const session = host.session;
    const remember = (request as ApprovalRequest & { remember?: Remember }).remember;
    return new Promise<InboxReply>((resolve) => {
      const onAbort = (): void =>
        this.desk.expire(session, request.call.id, 'the call stopped waiting (its deadline passed or its step was cancelled)');
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.desk.wait(session, request.call.id, {
        settle: async (input: AnswerInput, who: Answerer) => {
          if (request.signal.aborted) {
            throw new InboxError(InboxErrorCode.NOT_WAITING, 'the call stopped waiting before this answer came', { status: 410 });
          }
          const reply = replyOf(input, remember);
          const rules = 'rules' in reply && reply.rules !== undefined ? { rules: [...reply.rules] } : {};
          request.signal.removeEventListener('abort', onAbort);
          try {
            await host.events.emit(
              'inbox/answer' as never,
              {
                decision: input.decision,
                ...(input.scope === undefined ? {} : { scope: input.scope }),
                ...rules,
                by: who.by,
                from: who.from,
              } as never,
              request.call,
            );
          } catch {
            // The answer counts even when the sink could not take who gave it: core logs the answer itself.
          }
          resolve(reply);
        },
      });
    });
  };
}

function replyOf(input: AnswerInput, remember: Remember | undefined): InboxReply {
  if (input.decision === 'deny') return { answer: 'rejected', ...(input.message === undefined ? {} : { message: input.message }) };
  if (input.decision === 'allow-once') return { answer: 'allowed-once' };
  const scope = input.scope ?? 'session';
  if (remember === undefined || !remember.scopes.includes(scope)) {
    const offered =
      remember === undefined || remember.scopes.length === 0 ? 'nothing may be remembered' : `only ${remember.scopes.join(', ')}`;
    throw new InboxError(InboxErrorCode.CANNOT_REMEMBER, `this call cannot be remembered for the ${scope}: ${offered}`, { status: 400 });
  }
  const rules = input.rules ?? remember.suggestions[0]?.rules;
  return { answer: scope === 'session' ? 'allowed-session' : 'allowed-project', ...(rules === undefined ? {} : { rules }) };
}

function answerGone(data: unknown): string {
  const source = (data as { source?: string } | null)?.source;
  if (source === 'timeout') return 'the approval timed out';
  if (source === 'step') return 'the step was cancelled while the call waited';
  return 'the call was answered elsewhere';
}
