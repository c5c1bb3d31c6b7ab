import { type AnyToolDefinition, defineTool, type JsonValue, type ToolContext } from '@deepseek-ai/dsh-core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpCallError, McpErrorCode } from './errors.js';
import { type InputValidator, mcpInputSchema } from './input-schema.js';
import type { JsonSchemaCheck, JsonSchemaCompiler } from './json-schema-validator.js';
import { mapResult, resultText } from './result-mapping.js';
import type { ServerConnection } from './server-connection.js';
import { mcpToolName } from './tool-names.js';

/** What the annotations of a trusted server's tool were turned into; all false for an untrusted server. */
export interface AppliedHints {
  /** `readOnlyHint`: the body may overlap with other parallel tools. */
  readonly parallel: boolean;
  /** `idempotentHint`: a retry policy may run it again. */
  readonly idempotent: boolean;
  /** Not read-only and `destructiveHint` not false: the call starts from `ask`. */
  readonly ask: boolean;
}

/** A server's tool as registered. */
export interface McpToolInfo {
  /** The dsh name, `mcp__<server>__<tool>`. */
  readonly name: string;
  /** The tool's name on the server. */
  readonly serverTool: string;
  readonly description: string;
  /** Which validator checks the arguments. */
  readonly validator: InputValidator;
  /** The annotations as the server sent them (hints, not facts). */
  readonly annotations: Readonly<Record<string, unknown>> | undefined;
  readonly hints: AppliedHints;
}

/** Limits a tool body works within. */
export interface ToolLimits {
  readonly callTimeoutMs: number;
  readonly maxResultChars: number;
  readonly maxProgressUpdates: number;
  readonly maxSchemaChars: number;
  readonly maxDescriptionChars: number;
}

/** Turns a server's annotations into hints, trusting them only for trusted servers (defaults as in the MCP spec). */
export function appliedHints(tool: Tool, trusted: boolean): AppliedHints {
  if (!trusted) return { parallel: false, idempotent: false, ask: false };
  const a = tool.annotations ?? {};
  const readOnly = a.readOnlyHint === true;
  return { parallel: readOnly, idempotent: a.idempotentHint === true, ask: !readOnly && a.destructiveHint !== false };
}

/**
 * The dsh tool for one of a server's tools. Throws (with the reason) when it
 * cannot be registered: a name too long, a schema too large or that no
 * validator can use.
 */
export function buildMcpTool(
  connection: ServerConnection,
  tool: Tool,
  compiler: JsonSchemaCompiler,
  limits: ToolLimits,
): { readonly definition: AnyToolDefinition; readonly info: McpToolInfo } {
  const server = connection.config;
  const name = mcpToolName(server.name, tool.name);
  if (name.length > 64) throw new Error(`its name ${name} is longer than 64 characters`);
  const schemaText = JSON.stringify(tool.inputSchema, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? '';
  if (schemaText.length > limits.maxSchemaChars)
    throw new Error(`its input schema is ${schemaText.length} characters, more than ${limits.maxSchemaChars}`);
  const input = mcpInputSchema(tool.inputSchema as Record<string, unknown>, compiler);
  const output = tool.outputSchema === undefined ? undefined : compiler.compile(tool.outputSchema as Record<string, unknown>);
  const hints = appliedHints(tool, server.trusted === true);
  const rawDescription = tool.description ?? tool.title ?? '';
  const described = rawDescription.trim() === '' ? `The "${tool.name}" tool of the MCP server "${server.name}".` : rawDescription;
  const description = described.length > limits.maxDescriptionChars ? `${described.slice(0, limits.maxDescriptionChars)}…` : described;
  const timeoutMs = server.timeoutMs ?? limits.callTimeoutMs;
  const definition = defineTool({
    name,
    description,
    input: input.schema,
    parallel: hints.parallel,
    idempotent: hints.idempotent,
    timeoutMs,
    present: {
      presentCall: () => ({ title: `${server.name}: ${tool.title ?? tool.name}`, summary: `MCP tool ${tool.name}` }),
    },
    execute: (args, ctx) => runTool(connection, tool.name, args, ctx, { ...limits, callTimeoutMs: timeoutMs }, output),
  });
  return {
    definition: definition as unknown as AnyToolDefinition,
    info: {
      name,
      serverTool: tool.name,
      description,
      validator: input.validator,
      annotations: tool.annotations as Readonly<Record<string, unknown>> | undefined,
      hints,
    },
  };
}

async function runTool(
  connection: ServerConnection,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  ctx: ToolContext,
  limits: ToolLimits,
  output: JsonSchemaCheck | undefined,
): Promise<JsonValue> {
  let progressLeft = limits.maxProgressUpdates;
  // The timeout policy's deadline, when sooner, is the one the server is held to.
  const untilDeadline = ctx.deadline === undefined ? Number.POSITIVE_INFINITY : Math.ceil(ctx.deadline - performance.now());
  const timeoutMs = Math.max(1, Math.min(limits.callTimeoutMs, untilDeadline));
  const result = await connection.call(tool, args, {
    signal: ctx.signal,
    timeoutMs,
    onProgress: (p) => {
      if (progressLeft <= 0) return;
      progressLeft -= 1;
      ctx.progress({
        progress: p.progress,
        ...(p.total === undefined ? {} : { total: p.total }),
        ...(p.message === undefined ? {} : { message: p.message }),
      });
    },
  });
  const mapped = mapResult(result, limits.maxResultChars);
  if (result.isError === true) {
    const text = resultText(mapped);
    throw new McpCallError(McpErrorCode.MCP_TOOL_ERROR, text === '' ? `the MCP tool "${tool}" reported an error` : text, {
      data: mapped as unknown as JsonValue,
    });
  }
  if (output !== undefined) {
    if (result.structuredContent === undefined) {
      throw new McpCallError(
        McpErrorCode.MCP_OUTPUT_SCHEMA_MISMATCH,
        `the tool declares an output schema but returned no structuredContent`,
      );
    }
    const problems = output(result.structuredContent);
    if (problems !== undefined) {
      throw new McpCallError(
        McpErrorCode.MCP_OUTPUT_SCHEMA_MISMATCH,
        `structuredContent does not match the tool's output schema: ${problems.join('; ')}`,
      );
    }
  }
  return mapped as unknown as JsonValue;
}
