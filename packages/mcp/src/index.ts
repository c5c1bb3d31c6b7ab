/**
 * MCP servers' tools through the dsh pipeline. Servers are configured as in
 * Claude Code (`.mcp.json`, `mcpServers` in settings, or in code), started
 * over stdio (in their own process group) or Streamable HTTP, and each tool
 * is registered as `mcp__<server>__<tool>`, so the same hooks, permission
 * rules, guards, timeouts and logs apply to it as to any other tool.
 *
 * @packageDocumentation
 */
export { FileAuthStore, type McpAuthStore, type StoredAuth } from './auth-store.js';
export {
  type ConfigProblem,
  type HttpServerConfig,
  httpServerSchema,
  type McpServerConfig,
  normaliseName,
  type OAuthSettings,
  oauthSchema,
  type ResolvedServer,
  type ServerPolicy,
  type StdioServerConfig,
  serverEntrySchema,
  serverPolicySchema,
  stdioServerSchema,
} from './config.js';
export type { ElicitationAnswer, ElicitationHandler, ElicitationRequest } from './elicitation.js';
export { McpCallError, McpErrorCode } from './errors.js';
export { expandEnv } from './expand-env.js';
export { type InputValidator, type McpInputSchema, mcpInputSchema } from './input-schema.js';
export { type JsonSchemaCheck, JsonSchemaCompiler } from './json-schema-validator.js';
export type { SkippedTool } from './list-tools.js';
export { type AppliedHints, appliedHints, type McpToolInfo, type ToolLimits } from './mcp-tool.js';
export { type McpOptions, mcpOptionsSchema, type ResolvedMcpOptions } from './options.js';
export { type McpPlugin, type McpServerStatus, mcp, mcpPluginName } from './plugin.js';
export { type McpContent, type McpToolOutput, type McpTruncation, mapResult } from './result-mapping.js';
export { type AuthorizationHandler, type AuthorizationRequest, authorizationArrived } from './server-auth.js';
export type { McpServerError, McpServerState } from './server-connection.js';
export { eventStderrChars, type ServerExitedEventData, serverExitedEvent } from './server-events.js';
export type { McpProcessEnd, McpServerCrash, McpStartFailure } from './server-history.js';
export { StderrBuffer } from './stderr-buffer.js';
export { StdioTransport, type StdioTransportOptions } from './stdio-transport.js';
export { mcpToolName } from './tool-names.js';
export { version } from './version.js';
