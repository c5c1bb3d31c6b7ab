import { ToolError } from '@deepseek-ai/dsh-core';

/**
 * Stable codes of dsh-mcp. Outcome codes appear as `outcome.error.code` of an
 * `mcp__<server>__<tool>` call; status codes appear in {@link McpServerStatus.lastError};
 * `INVALID_OPTIONS` is thrown by the `mcp` factory. `TOOL_TIMEOUT` and `ABORTED`
 * are core's codes, reused so a stopped call reads the same whoever stopped it.
 */
export const McpErrorCode = {
  /** The server is not connected (starting, failed, restarting, closed, or its entry is invalid): the call was not sent. */
  MCP_SERVER_UNAVAILABLE: 'MCP_SERVER_UNAVAILABLE',
  /** The server's process exited or its connection closed while the call was in flight. */
  MCP_SERVER_EXITED: 'MCP_SERVER_EXITED',
  /** The server asks for OAuth authorization and nobody could give it (no `authorize` handler, the person declined or did not finish). Not retried by itself. */
  MCP_AUTH_REQUIRED: 'MCP_AUTH_REQUIRED',
  /** OAuth failed: bad metadata (such as a cross-origin endpoint), an error from the authorization server, a 401 or 403 after authorizing. */
  MCP_AUTH_FAILED: 'MCP_AUTH_FAILED',
  /** The token file cannot be used: corrupt JSON, or readable by others than its owner (mode not 0600). */
  MCP_AUTH_STORE_INVALID: 'MCP_AUTH_STORE_INVALID',
  /** The server could not be started or did not complete the MCP handshake. */
  MCP_START_FAILED: 'MCP_START_FAILED',
  /** The server does not speak the entry's pinned `protocol`, or the entry needs what dsh does not yet offer on 2026-07-28 (OAuth). Not retried by itself. */
  MCP_PROTOCOL_UNSUPPORTED: 'MCP_PROTOCOL_UNSUPPORTED',
  /** A server entry or configuration file is invalid; the message names the file and key. */
  MCP_CONFIG_INVALID: 'MCP_CONFIG_INVALID',
  /** The server answered with `isError: true`; the message is the server's text. */
  MCP_TOOL_ERROR: 'MCP_TOOL_ERROR',
  /** The server answered the call with a JSON-RPC error. */
  MCP_PROTOCOL_ERROR: 'MCP_PROTOCOL_ERROR',
  /** The server's result is not a valid `tools/call` result. */
  MCP_INVALID_RESULT: 'MCP_INVALID_RESULT',
  /** `structuredContent` does not match the tool's declared `outputSchema` (or is missing). */
  MCP_OUTPUT_SCHEMA_MISMATCH: 'MCP_OUTPUT_SCHEMA_MISMATCH',
  /** The call passed its deadline (the plugin's `callTimeoutMs`, or the timeout policy's). */
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  /** The call's signal was aborted; the server was sent `notifications/cancelled`. */
  ABORTED: 'ABORTED',
  /** `mcp()` was called with options it cannot use. */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
} as const;

/** One of dsh-mcp's stable codes. */
export type McpErrorCode = (typeof McpErrorCode)[keyof typeof McpErrorCode];

/** A failure of an MCP call, with one of {@link McpErrorCode}; becomes the outcome's error. */
export class McpCallError extends ToolError {
  constructor(code: McpErrorCode, message: string, options?: { cause?: unknown; data?: unknown }) {
    super(code, message, options);
    this.name = 'McpCallError';
  }
}
