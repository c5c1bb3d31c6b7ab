import { type Args, DshError, type Host, type Outcome, type ToolSchema } from '@deepseek-ai/dsh-core';
import { type JSONSchema7, jsonSchema, type ModelMessage, type Tool } from 'ai';
import { AiSdkError, AiSdkErrorCode } from './errors.js';
import { checkFrameworkTool, frameworkToolDefinition, isZod4 } from './framework-tools.js';
import { enforceOwnApproval } from './internal/own-approval.js';
import { modelOutputOf } from './model-output.js';
import {
  type AiSdkBridgeOptions,
  type DshToolsOptions,
  parseBridgeOptions,
  parseDshToolsOptions,
  parseToolsOptions,
  type ResolvedDshToolsOptions,
  type ToolsOptions,
} from './options.js';
import { RefusedCalls, type RepairQuestion } from './refused-calls.js';
import { type PendingApproval, SdkCalls } from './sdk-calls.js';
import type { SdkCallOptions } from './sdk-types.js';

/** A tool of the set `dshTools` returns: its `execute` resolves with the dsh outcome, which `toModelOutput` turns into what the model reads. */
export type DshTool = Tool<Args, Outcome>;

/** The call the SDK 7 `toolApproval` function is asked about, as far as the adapter reads it. */
export interface ToolApprovalQuestion {
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
  readonly tools?: Readonly<Record<string, unknown>> | undefined;
  readonly messages: ModelMessage[];
}

/** What the SDK 7 `toolApproval` function answers. */
export type ToolApprovalAnswer = 'not-applicable' | { readonly type: 'user-approval'; readonly reason?: string };

/** What `aiSdkBridge` returns: the tool sets and the helpers that complete the SDK's loop. */
export interface AiSdkBridge {
  /** The host this bridge serves. */
  readonly host: Host;
  /**
   * The tools for `generateText({ tools })` / `streamText({ tools })`: every
   * tool of the host (the framework tools included), or `include`, minus
   * `exclude`. Throws `AI_SDK_UNKNOWN_TOOL` for a name the host lacks.
   */
  tools(options?: ToolsOptions): Record<string, DshTool>;
  /**
   * For `prepareStep`: reads the user's denials from the history (the SDK
   * runs nothing for a denied call, so this is where dsh hears them) and puts
   * each step's added context (post-execute `additionalContext`) after the
   * results it belongs to. Compose it with your own: `{ ...dsh.prepareStep(o), ...yours(o) }`.
   */
  readonly prepareStep: (options: { readonly messages: ModelMessage[] }) => { messages?: ModelMessage[] };
  /**
   * For AI SDK 7's `toolApproval`: the same decision as the tools'
   * `needsApproval`, with dsh's reason on the request. Other tools keep their
   * own `needsApproval`.
   */
  readonly toolApproval: (question: ToolApprovalQuestion) => Promise<ToolApprovalAnswer>;
  /**
   * For `experimental_repairToolCall`: a call the SDK refuses before any tool
   * sees it (unparsable JSON, a tool it does not have, input its own schema
   * check rejects) runs through the pipeline, where it ends `INVALID_ARGS` or
   * `UNKNOWN_TOOL` with its `tool/call` and `tool/result`; the model reads
   * that outcome as the call's error, and the loop goes on. Tools passed to
   * the SDK beside dsh's keep the SDK's own answer. Always throws or resolves `null`.
   */
  readonly repairToolCall: (question: RepairQuestion) => Promise<null>;
  /** `messages` with the added context inserted (what `prepareStep` returns), for loops that build requests themselves. */
  withContext(messages: ModelMessage[]): ModelMessage[];
  /** The calls waiting for the user, with dsh's reason for asking (AI SDK 6's request carries none). */
  pendingApprovals(): PendingApproval[];
  /**
   * Settles once every call seen so far has its `tool/result` in the session
   * log's sink (flushed), so the log can be read at once: after `generateText`
   * returns, a denied call's result may still be on its way. Calls waiting for
   * the user (`pendingApprovals()`) or for the SDK to execute them are not
   * waited for: they end when the next request carries the user's answer,
   * at `abandon()`, at the host's `approvalTimeoutMs` or at `holdTimeoutMs`.
   */
  settled(): Promise<void>;
  /** Ends every call still waiting (for the user, or for the SDK to execute it): each gets its one result. */
  abandon(reason?: string): void;
  /** Abandons, then removes what the bridge added to the host (its taps, its guard and the framework tools). */
  dispose(): void;
}

/**
 * What the deprecated `dshTools` returns: the bridge with the tool set made once.
 * @deprecated Use {@link AiSdkBridge} (`aiSdkBridge(host)`, then `bridge.tools()`).
 */
export interface DshToolSet extends Omit<AiSdkBridge, 'tools' | 'host'> {
  /** The tools for `generateText({ tools })` / `streamText({ tools })`. */
  readonly tools: Record<string, DshTool>;
}

/**
 * Bridges the Vercel AI SDK to `host`, so that every tool call of
 * `generateText` / `streamText` (and agents built on them) runs through the
 * dsh pipeline: hooks, rules, approval, guards, timeouts and the session log.
 * Give `bridge.tools()`, `bridge.prepareStep` and `bridge.repairToolCall` to
 * the SDK. With `approvals` (an `aiSdkApprovals()` whose `provider` the host
 * was created with), dsh's `ask` becomes the SDK's tool approval.
 * Throws `AI_SDK_*` errors for bad options or tools (see the README).
 */
export function aiSdkBridge(host: Host, options?: AiSdkBridgeOptions): AiSdkBridge {
  return createBridge(host, parseBridgeOptions(options));
}

/**
 * Offers a host's tools to the Vercel AI SDK: `aiSdkBridge(host, options)`
 * with the tool set `bridge.tools({ include })` made once.
 * @deprecated Use `aiSdkBridge(host, options)` and `bridge.tools({ include, exclude })`.
 */
export function dshTools(host: Host, options?: DshToolsOptions): DshToolSet {
  const o = parseDshToolsOptions(options);
  const { tools, host: _host, ...bridge } = createBridge(host, o);
  try {
    return { ...bridge, tools: tools(o.include === undefined ? {} : { include: o.include }) };
  } catch (error) {
    // Nothing stays on the host from a call that threw.
    bridge.dispose();
    throw error;
  }
}

function createBridge(host: Host, o: ResolvedDshToolsOptions): AiSdkBridge {
  const calls = new SdkCalls(host, { maxParallel: o.maxParallel, holdTimeoutMs: o.holdTimeoutMs });
  /** Every tool a `tools()` call offered: a host tool outside it is refused. */
  const offered = new Set<string>();
  const refused = new RefusedCalls(host, calls, (name) => offered.has(name));
  const undo: (() => void)[] = [() => refused.dispose()];
  const finish = () => {
    for (const step of undo.splice(0).reverse()) step();
  };
  try {
    if (o.approvals !== undefined) undo.push(o.approvals.attach(calls));
    for (const [name, sdkTool] of Object.entries(o.tools)) {
      checkFrameworkTool(name, sdkTool);
      if (host.tools.get(name) !== undefined) {
        throw new AiSdkError(AiSdkErrorCode.TOOL_NAME_TAKEN, `tools.${name}: the host already has a tool named "${name}"`);
      }
      const definition = frameworkToolDefinition(name, sdkTool, {
        parallel: o.parallelTools.has(name),
        sdkOptionsOf: (call) => calls.optionsOf(call),
        refusalOf: (input) => refused.refusalOf(input),
      });
      if (!isZod4(sdkTool.inputSchema)) refused.checkedBySdk(name);
      undo.push(host.tools.register(definition));
    }
    undo.push(enforceOwnApproval(host, o.tools, (call) => calls.optionsOf(call)));
    // Outermost, so that a timeout policy's clock starts when the body may start, not while the SDK has yet to execute the call.
    undo.push(
      host.hooks.execute.tap({ name: 'ai-sdk/hold', stage: -1_000_000 }, (ctx, next) => calls.hold(ctx.call, ctx.cancellation, next)),
    );
    // First, and without a deadline of its own: it waits for earlier calls' bodies, which have their own limits.
    undo.push(
      host.hooks.postExecute.tap({ name: 'ai-sdk/commit-order', stage: -1_000_000, timeoutMs: 2_147_483_647 }, (state) => {
        const waiting = calls.inModelOrder(state.call);
        return waiting === undefined ? undefined : waiting.then(() => undefined);
      }),
    );
  } catch (error) {
    finish();
    if (DshError.isInstance(error)) throw error;
    throw new AiSdkError(AiSdkErrorCode.INVALID_OPTIONS, `dshTools: ${String(error)}`, { cause: error });
  }

  const toolSet = (toolsOptions: ToolsOptions | undefined): Record<string, DshTool> => {
    const { include, exclude } = parseToolsOptions(toolsOptions);
    const schemas = new Map(host.tools.schemas().map((schema) => [schema.name, schema]));
    for (const [field, list] of [
      ['include', include],
      ['exclude', exclude],
    ] as const) {
      const unknown = list?.find((name) => !schemas.has(name));
      if (unknown !== undefined) throw new AiSdkError(AiSdkErrorCode.UNKNOWN_TOOL, `${field}: the host has no tool named "${unknown}"`);
    }
    const tools: Record<string, DshTool> = {};
    for (const name of (include ?? [...schemas.keys()]).filter((n) => !exclude?.includes(n))) {
      const schema = schemas.get(name);
      if (schema === undefined) continue;
      offered.add(name);
      tools[name] = dshTool(name, schema);
    }
    return tools;
  };

  const dshTool = (name: string, schema: ToolSchema): DshTool => {
    const own = o.tools[name] as { inputSchema?: unknown; toModelOutput?: DshTool['toModelOutput'] } | undefined;
    return {
      description: schema.description,
      // The SDK's own schema for a framework tool, so it validates as it would without dsh; dsh validates its tools itself (losslessly).
      inputSchema: (own?.inputSchema as DshTool['inputSchema'] | undefined) ?? jsonSchema<Args>(schema.inputSchema as JSONSchema7),
      needsApproval: (input: Args, sdk: SdkCallOptions) => calls.needsApproval(name, input, sdk),
      execute: (input: Args, sdk: SdkCallOptions) => calls.execute(name, input, sdk),
      toModelOutput: (({ toolCallId, input, output }: { toolCallId: string; input: unknown; output: Outcome }) => {
        const ownOutput = own?.toModelOutput as ((o: { toolCallId: string; input: unknown; output: unknown }) => unknown) | undefined;
        if (ownOutput !== undefined && output.status === 'ok') return ownOutput({ toolCallId, input, output: output.output });
        return modelOutputOf(output);
      }) as unknown as DshTool['toModelOutput'],
    } as unknown as DshTool;
  };

  const prepareStep = ({ messages }: { readonly messages: ModelMessage[] }) => {
    calls.readDenials(messages);
    const next = calls.withContext(messages);
    return next === messages ? {} : { messages: next };
  };

  const toolApproval = async ({ toolCall, tools: given, messages }: ToolApprovalQuestion): Promise<ToolApprovalAnswer> => {
    const { toolCallId, toolName, input } = toolCall;
    if (offered.has(toolName)) {
      const ask = await calls.needsApproval(toolName, input as Args, { toolCallId, messages });
      if (!ask) return 'not-applicable';
      const reason = calls.pendingApprovals().find((p) => p.toolCallId === toolCallId)?.reason;
      return reason === undefined ? { type: 'user-approval' } : { type: 'user-approval', reason };
    }
    const other = given !== undefined && Object.hasOwn(given, toolName) ? (given[toolName] as { needsApproval?: unknown }) : undefined;
    const needs = other?.needsApproval;
    const yes = typeof needs === 'function' ? await needs(input, { toolCallId, messages }) : needs === true;
    return yes === true ? { type: 'user-approval' } : 'not-applicable';
  };

  return {
    host,
    tools: toolSet,
    prepareStep,
    toolApproval,
    repairToolCall: (question) => refused.repair(question),
    withContext: (messages) => calls.withContext(messages),
    pendingApprovals: () => calls.pendingApprovals(),
    settled: () => calls.settled(),
    abandon: (reason = 'the conversation was abandoned') => calls.abandon(reason),
    dispose() {
      calls.abandon('the adapter was disposed');
      finish();
    },
  };
}
