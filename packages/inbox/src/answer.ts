import { z } from '@deepseek-ai/dsh-core';

/** What a person decided on the page. */
export const answerInputSchema = z.strictObject({
  /** `allow-once` covers this call; `allow-always` also remembers a grant; `deny` tells the model `message`. */
  decision: z.enum(['allow-once', 'allow-always', 'deny']),
  /** Where an `allow-always` grant lives (as the permissions plugin stores it). */
  scope: z.enum(['session', 'project']).optional(),
  /** The rules to remember; the first suggestion when absent. */
  rules: z.array(z.string().min(1).max(1000)).max(20).optional(),
  /** For a deny: the message the model reads. */
  message: z.string().max(4000).optional(),
});

/** A decision sent to {@link Inbox.answer} or posted by the page. */
export type AnswerInput = z.infer<typeof answerInputSchema>;

/** Who answered and from where: recorded with the answer in the session's log. */
export interface Answerer {
  /** The person: the `authorize` hook's user, else `token holder`. */
  readonly by: string;
  /** Where the answer came from: the page's address and browser, or `api`. */
  readonly from: string;
}

/** The answer that counts for a call: the first one given. */
export interface StandingAnswer {
  readonly decision: AnswerInput['decision'];
  readonly scope?: 'session' | 'project';
  readonly message?: string;
  readonly by: string;
  readonly from: string;
  readonly at: string;
}

/** What an answer did: it counted, or an earlier one stands. */
export type AnswerResult =
  | { readonly status: 'answered'; readonly answer: StandingAnswer }
  | { readonly status: 'already-answered'; readonly answer: StandingAnswer };
