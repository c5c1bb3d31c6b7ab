import type { ModelMessage } from 'ai';
import { partsOf } from './sdk-types.js';

/** A `tool-approval-response` with `approved: false` found in the history. */
export interface DeniedResponse {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly reason: string | undefined;
}

/**
 * The denials the user gave in `messages`: each `tool-approval-response` part
 * with `approved: false`, tied to its call through the matching
 * `tool-approval-request` (or its own `toolCallId` where the SDK adds one).
 * The SDK runs nothing for a denied call, so this is how dsh hears the answer.
 */
export function deniedResponses(messages: readonly ModelMessage[]): DeniedResponse[] {
  const callOfApproval = new Map<string, string>();
  const denied: { approvalId: string; toolCallId: string | undefined; reason: string | undefined }[] = [];
  for (const message of messages) {
    for (const part of partsOf(message)) {
      if (part.type === 'tool-approval-request' && part.approvalId !== undefined && part.toolCallId !== undefined) {
        callOfApproval.set(part.approvalId, part.toolCallId);
      } else if (part.type === 'tool-approval-response' && part.approved === false && part.approvalId !== undefined) {
        denied.push({ approvalId: part.approvalId, toolCallId: part.toolCallId, reason: part.reason });
      }
    }
  }
  const found: DeniedResponse[] = [];
  for (const d of denied) {
    const toolCallId = d.toolCallId ?? callOfApproval.get(d.approvalId);
    if (toolCallId !== undefined) found.push({ approvalId: d.approvalId, toolCallId, reason: d.reason });
  }
  return found;
}
