/**
 * The approval inbox for dsh: a local web page where people watch agent
 * sessions and answer the approvals they wait on.
 *
 * @packageDocumentation
 */
export { type Answerer, type AnswerInput, type AnswerResult, answerInputSchema, type StandingAnswer } from './answer.js';
export type { AnswerDelivery, AnswerTarget } from './answer-target.js';
export { InboxError, InboxErrorCode } from './errors.js';
export { contentSecurityPolicy } from './http-guard.js';
export { createInbox, Inbox } from './inbox.js';
export { type InboxReply, inboxAnswerEvent } from './live-host.js';
export type { LogFolderOptions } from './log-folder.js';
export {
  type AuthorizeHook,
  type AuthorizeVerdict,
  type InboxAction,
  type InboxOptions,
  inboxOptionsSchema,
  type ResolvedInboxOptions,
} from './options.js';
export type { InboxEvent, SessionSource, SessionStatus, SessionSummary } from './session-store.js';
export { version } from './version.js';
