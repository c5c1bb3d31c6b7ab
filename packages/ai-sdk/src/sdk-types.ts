import type { ModelMessage } from 'ai';

/**
 * What the SDK passes to a tool's `needsApproval` and `execute` besides the
 * input, as far as the adapter reads it. The same in AI SDK 6 and 7
 * (`experimental_context` in 6, `context` in 7 are handed on untouched).
 */
export interface SdkCallOptions {
  readonly toolCallId?: string;
  readonly messages?: ModelMessage[];
  readonly abortSignal?: AbortSignal;
  readonly [key: string]: unknown;
}

/** A content part of a message, as the scans of the history read it. */
export interface MessagePart {
  readonly type: string;
  readonly toolCallId?: string;
  readonly approvalId?: string;
  readonly approved?: boolean;
  readonly reason?: string;
}

/** The parts of a message, or none when its content is plain text. */
export function partsOf(message: ModelMessage): readonly MessagePart[] {
  const content: unknown = message.content;
  return Array.isArray(content) ? (content as MessagePart[]) : [];
}
