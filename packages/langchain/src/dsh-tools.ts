import { randomUUID } from 'node:crypto';
import type { Host } from '@deepseek-ai/dsh-core';
import { outcomeText } from '@deepseek-ai/dsh-core';
import { DynamicStructuredTool } from '@langchain/core/tools';
import { LangChainBridgeError, LangChainErrorCode } from './errors.js';

/**
 * LangChain tools for the host's dsh tools, with the JSON Schema the host
 * gives the model. Under the bridge's middleware their handler never runs
 * (the middleware runs the dsh tool); called on their own (a plain
 * `tool.invoke`), each runs one call through `host.runStep` and returns the
 * text the model would read.
 */
export function dshLangChainTools(
  host: Host,
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
  mark: (tool: DynamicStructuredTool) => void,
): DynamicStructuredTool[] {
  const schemas = new Map(host.tools.schemas().map((schema) => [schema.name, schema]));
  const unknown = exclude?.find((name) => !schemas.has(name));
  if (unknown !== undefined) {
    throw new LangChainBridgeError(LangChainErrorCode.UNKNOWN_TOOL, `tools: exclude: the host has no tool named "${unknown}"`);
  }
  const names = (include ?? [...schemas.keys()]).filter((name) => !exclude?.includes(name));
  return names.map((name) => {
    const schema = schemas.get(name);
    if (schema === undefined) {
      throw new LangChainBridgeError(LangChainErrorCode.UNKNOWN_TOOL, `tools: include: the host has no tool named "${name}"`);
    }
    const tool = new DynamicStructuredTool({
      name,
      description: schema.description,
      // A copy: LangChain's validator annotates the schema object, and the host's is frozen.
      schema: structuredClone(schema.inputSchema) as Record<string, unknown>,
      func: async (input: Record<string, unknown>, _runManager, config) => {
        const id = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id ?? `langchain-${randomUUID()}`;
        const result = await host.runStep({ calls: [{ id, name, args: input }] });
        const outcome = result.results[0]?.outcome;
        return outcome === undefined
          ? `Error (${result.error?.code ?? 'TOOL_FAILED'}): ${result.error?.message ?? 'no result'}`
          : outcomeText(outcome);
      },
    });
    mark(tool);
    return tool;
  });
}
