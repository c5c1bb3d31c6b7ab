import { z } from '@deepseek-ai/dsh-core';
import { InboxError, InboxErrorCode } from './errors.js';

/** What a request wants to do, as the `authorize` option of {@link InboxOptions} is asked about it. */
export type InboxAction = 'view' | 'answer';

/** What an `authorize` hook may answer: no, yes, or yes as a named person (recorded with answers). */
export type AuthorizeVerdict = boolean | { readonly user: string };

/** A platform's own login in front of the inbox: called for every request after the token check. */
export type AuthorizeHook = (
  request: import('node:http').IncomingMessage,
  action: InboxAction,
) => AuthorizeVerdict | Promise<AuthorizeVerdict>;

const authorizeSchema = z.custom<AuthorizeHook>((v) => typeof v === 'function', 'authorize must be a function');

/** The inbox's options, validated by {@link createInbox}. */
export const inboxOptionsSchema = z.strictObject({
  /** The address to bind: `127.0.0.1` unless set. Another address needs a token. */
  host: z.string().min(1).default('127.0.0.1'),
  /** The port; 0 picks a free one. */
  port: z.number().int().min(0).max(65_535).default(0),
  /** The secret every request must carry; a random one unless set. `false` turns it off (loopback only). */
  token: z.union([z.string().min(16, 'token must have at least 16 characters'), z.literal(false)]).optional(),
  /** Called for every request once the token passed, with `view` or `answer`. */
  authorize: authorizeSchema.optional(),
  /** The largest request body taken, in bytes. */
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** How many live streams (open pages) at once; more are refused with `INBOX_TOO_MANY_STREAMS`. */
  maxStreams: z.number().int().positive().default(1024),
  /** How many events per session the inbox keeps for the page (the oldest go first). */
  retainEvents: z.number().int().positive().default(20_000),
  /** How many answered approvals are remembered, to tell a second answer what the first one said. */
  retainAnswers: z.number().int().positive().default(10_000),
  /** How often a log folder is checked for new lines, in milliseconds (a file watch also wakes it). */
  pollMs: z.number().int().positive().default(250),
});

/** Options of {@link createInbox}. */
export type InboxOptions = z.input<typeof inboxOptionsSchema>;
/** Options after defaults. */
export type ResolvedInboxOptions = z.output<typeof inboxOptionsSchema>;

/** Validates options, naming the field of the first problem. */
export function parseInboxOptions(options: unknown): ResolvedInboxOptions {
  const parsed = inboxOptionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || '(options)';
  throw new InboxError(InboxErrorCode.INVALID_OPTIONS, `invalid inbox option ${field}: ${issue?.message ?? 'invalid'}`);
}
