import { McpError, ErrorCode as RpcErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { McpCallError, McpErrorCode } from './errors.js';

/** What is known about the connection when a call failed. */
export interface CallFailureContext {
  readonly server: string;
  /** The call's own signal was aborted. */
  readonly aborted: boolean;
  readonly timeoutMs: number;
  /** The connection is still ready. */
  readonly ready: boolean;
  /** The message recorded when the server exited, if it did. */
  readonly exitMessage: string | undefined;
}

/** Maps whatever the SDK threw for a `tools/call` to an error with one of our codes. */
export function callError(error: unknown, at: CallFailureContext): McpCallError {
  if (at.aborted) return new McpCallError(McpErrorCode.ABORTED, 'the call was cancelled; the server was told to stop', { cause: error });
  if (error instanceof McpError) {
    if (error.code === RpcErrorCode.RequestTimeout) {
      return new McpCallError(McpErrorCode.TOOL_TIMEOUT, `the server did not answer within ${at.timeoutMs} ms; the call was cancelled`);
    }
    if (error.code === RpcErrorCode.ConnectionClosed) {
      return new McpCallError(
        McpErrorCode.MCP_SERVER_EXITED,
        `${at.exitMessage ?? `server "${at.server}" closed its connection`}; the call has no result`,
      );
    }
    return new McpCallError(McpErrorCode.MCP_PROTOCOL_ERROR, `the server answered with an error: ${error.message}`, {
      data: { rpcCode: error.code },
    });
  }
  if (typeof error === 'object' && error !== null && Array.isArray((error as { issues?: unknown }).issues)) {
    return new McpCallError(
      McpErrorCode.MCP_INVALID_RESULT,
      `the server's result is not a valid tools/call result: ${describe(error).slice(0, 500)}`,
    );
  }
  if (!at.ready) {
    return new McpCallError(McpErrorCode.MCP_SERVER_EXITED, `server "${at.server}" went away during the call: ${describe(error)}`);
  }
  return new McpCallError(McpErrorCode.MCP_PROTOCOL_ERROR, `the call failed: ${describe(error)}`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
