import { DshError } from '@deepseek-ai/dsh-core';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { McpErrorCode } from './errors.js';

/** An OAuth failure, with its code and a message that names no secret. */
export interface AuthFailure {
  readonly code: McpErrorCode;
  readonly message: string;
}

const ownCodes = new Set<string>([
  McpErrorCode.MCP_AUTH_REQUIRED,
  McpErrorCode.MCP_AUTH_FAILED,
  McpErrorCode.MCP_AUTH_STORE_INVALID,
  McpErrorCode.MCP_CONFIG_INVALID,
]);

/** What an error thrown by the SDK (or by our provider) means for OAuth; undefined when it is not about OAuth. */
export function authFailure(error: unknown): AuthFailure | undefined {
  if (error instanceof DshError && ownCodes.has(error.code)) return { code: error.code as McpErrorCode, message: error.message };
  if (error instanceof UnauthorizedError) {
    return { code: McpErrorCode.MCP_AUTH_REQUIRED, message: 'the server requires OAuth authorization (HTTP 401)' };
  }
  if (error instanceof OAuthError) {
    return { code: McpErrorCode.MCP_AUTH_FAILED, message: `the authorization server answered ${error.errorCode}: ${error.message}` };
  }
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    const afterAuth = /after (successful authentication|trying upscoping)/.test(error.message);
    return {
      code: afterAuth ? McpErrorCode.MCP_AUTH_FAILED : McpErrorCode.MCP_AUTH_REQUIRED,
      message: `the server answered HTTP ${error.code}${afterAuth ? ' again after authorization' : ' and OAuth is off for it'}`,
    };
  }
  return undefined;
}
