import { ToolError } from '@deepseek-ai/dsh-core';
import { ToolMessage } from '@langchain/core/messages';
import { isCommand } from '@langchain/langgraph';

/** Code of the error outcome when a LangChain tool's handler answered with an error tool message. */
export const FRAMEWORK_TOOL_ERROR = 'TOOL_FAILED';

/**
 * The dsh output of what a LangChain tool's handler returned: a tool
 * message's content (text, or its content blocks), or the tool message a
 * `Command` carries for this call. An error tool message becomes an error
 * outcome, so that post-execute hooks see a failure, not output.
 */
export function frameworkOutput(result: unknown, callId: string): string | unknown[] {
  const message = isCommand(result) ? commandMessage(result.update, callId) : result;
  if (!ToolMessage.isInstance(message)) return isCommand(result) ? '(the tool answered with a graph command)' : String(result);
  const content = message.content;
  if (message.status === 'error') {
    throw new ToolError(FRAMEWORK_TOOL_ERROR, typeof content === 'string' ? content : JSON.stringify(content));
  }
  return typeof content === 'string' ? content : plain(content);
}

function commandMessage(update: unknown, callId: string): unknown {
  const messages = (update as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return undefined;
  return messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === callId);
}

// Content blocks are plain data, but may carry `undefined` fields that lossless JSON refuses.
function plain(blocks: unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(blocks)) as unknown[];
}
