import type { Host } from '@deepseek-ai/dsh-core';
import type { FunctionTool, ToolInputParameters, ToolOptions, UnknownContext } from '@openai/agents-core';
import { type AgentsBridge, createAgentsBridge } from './bridge.js';
import type { BridgedTool } from './internal/sdk-tool.js';
import { type OpenAiAgentsBridgeOptions, openaiAgentsBridgeOptionsSchema, parseOptions, type ToolsOptions } from './options.js';

/**
 * The OpenAI Agents SDK as a front end of one dsh host, bound to it at
 * creation: the same shape as `aiSdkBridge` and `langchainBridge`.
 */
export interface OpenAiAgentsBridge {
  /** The host this bridge serves. */
  readonly host: Host;
  /** The host's dsh tools as SDK function tools (every one but wrapped SDK tools, or `include`, minus `exclude`). */
  tools(options?: ToolsOptions): BridgedTool[];
  /** Registers an SDK function tool with the host as a dsh tool and returns the SDK tool to give the agent in its place. */
  // biome-ignore lint/suspicious/noExplicitAny: any SDK function tool, whatever its context and parameter types.
  wrap(sdkTool: FunctionTool<any, any, any>): BridgedTool;
  /** The SDK's `tool(options)` through dsh: like `wrap`, but a throw of its `execute` is `TOOL_FAILED`. */
  tool<TParameters extends ToolInputParameters = undefined, Context = UnknownContext>(
    options: ToolOptions<TParameters, Context>,
  ): BridgedTool;
  /** See {@link AgentsBridge.settle}. */
  settle: AgentsBridge['settle'];
  /** See {@link AgentsBridge.describe}. */
  describe: AgentsBridge['describe'];
  /**
   * Resolves once every call the bridge has seen so far has its `tool/result`
   * in the session log's sink. A call waiting for a person is not waited for:
   * it ends when `settle(state)` hands the person's rejection to dsh, when the
   * approved call is invoked, or at the host's `approvalTimeoutMs`.
   */
  settled(): Promise<void>;
  /** See {@link AgentsBridge.runConfig}. */
  readonly runConfig: AgentsBridge['runConfig'];
  /** See {@link AgentsBridge.problems}. */
  problems(): readonly Error[];
}

/**
 * Bridges the OpenAI Agents SDK's loop to `host`: give `bridge.tools()` (and
 * `bridge.wrap(tool)` for the SDK's own tools) to the agent and
 * `bridge.runConfig` to the `Runner`. With `approvals` (an
 * `openaiAgentsApprovals()` whose `provider` the host was created with), dsh's
 * asks become the run's interruptions. Throws `AGENTS_INVALID_OPTIONS` naming a bad field.
 */
export function openaiAgentsBridge(host: Host, options: OpenAiAgentsBridgeOptions = {}): OpenAiAgentsBridge {
  const { approvals, ...rest } = parseOptions<OpenAiAgentsBridgeOptions>(openaiAgentsBridgeOptionsSchema, options, 'openaiAgentsBridge');
  const bridge = createAgentsBridge(
    approvals?.fallback === undefined ? rest : { ...rest, fallbackApproval: approvals.fallback },
    'openaiAgentsBridge',
  );
  approvals?.attach(bridge.approval);
  bridge.bind(host);
  return {
    host,
    tools: (toolsOptions) => bridge.tools(host, toolsOptions),
    wrap: (sdkTool) => bridge.wrap(host, sdkTool),
    tool: (toolOptions) => bridge.tool(host, toolOptions),
    settle: (state) => bridge.settle(state),
    describe: (item) => bridge.describe(item),
    settled: () => bridge.settled(),
    runConfig: bridge.runConfig,
    problems: () => bridge.problems(),
  };
}
