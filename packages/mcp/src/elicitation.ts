import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/** What a server asks the user through elicitation, as the plugin's `elicit` handler receives it. */
export interface ElicitationRequest {
  readonly server: string;
  readonly message: string;
  /** `form` (answer with `content` matching `requestedSchema`) or `url` (the user visits `url`). */
  readonly mode: 'form' | 'url';
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  readonly url?: string;
  /** Aborted when the server cancels the request or the connection closes. */
  readonly signal: AbortSignal;
}

/** The answer to an elicitation: accept (with content for a form), decline or cancel. */
export type ElicitationAnswer =
  | { readonly action: 'accept'; readonly content?: Readonly<Record<string, string | number | boolean | readonly string[]>> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/** Answers a server's elicitation request: the host's UI seam. */
export type ElicitationHandler = (request: ElicitationRequest) => ElicitationAnswer | Promise<ElicitationAnswer>;

/**
 * Answers a server's elicitation request through the handler. Without a
 * handler, or when it throws or answers nonsense, the answer is `decline`:
 * nothing is ever accepted unasked.
 */
export async function answerElicitation(
  server: string,
  handler: ElicitationHandler | undefined,
  params: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
): Promise<ElicitResult> {
  if (handler === undefined) return { action: 'decline' };
  const request: ElicitationRequest = {
    server,
    message: typeof params.message === 'string' ? params.message : '',
    mode: params.mode === 'url' ? 'url' : 'form',
    signal,
    ...(typeof params.requestedSchema === 'object' && params.requestedSchema !== null
      ? { requestedSchema: params.requestedSchema as Record<string, unknown> }
      : {}),
    ...(typeof params.url === 'string' ? { url: params.url } : {}),
  };
  try {
    const answer = await handler(request);
    if (answer?.action === 'accept') {
      const content = answer.content;
      return content === undefined ? { action: 'accept' } : { action: 'accept', content: { ...content } as ElicitResult['content'] };
    }
    return { action: answer?.action === 'cancel' ? 'cancel' : 'decline' };
  } catch {
    return { action: 'decline' };
  }
}
