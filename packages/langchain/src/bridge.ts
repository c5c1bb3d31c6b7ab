import type { ApprovalProvider, Host, z } from '@deepseek-ai/dsh-core';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { createMiddleware } from 'langchain';
import { GraphApprovals, type PendingApproval } from './approvals.js';
import { BridgeState } from './bridge-state.js';
import { dshLangChainTools } from './dsh-tools.js';
import { LangChainBridgeError, LangChainErrorCode } from './errors.js';
import { parseOptions } from './internal/parse-options.js';
import { admitInvalidCalls } from './invalid-calls.js';
import {
  bridgeOptionsSchema,
  type DshToolsOptions,
  hostBridgeOptionsSchema,
  type LangChainBridgeOptions,
  type LangChainHostBridgeOptions,
  toolsOptionsSchema,
} from './options.js';
import { runCall } from './run-call.js';

// The wait for earlier calls is bounded by them, not by a tap deadline; this is the longest a timer can wait.
const longestTimer = 2_147_483_647;

/** The agent middleware `bridge.middleware(host)` makes: pass it to `createAgent({ middleware })`. */
export type DshMiddleware = ReturnType<typeof createMiddleware>;

/**
 * dsh as the tool layer of a LangChain agent. Give `approval` to
 * `createHost`, then `middleware(host)` to `createAgent({ middleware })` and
 * `tools(host)` (with any LangChain tools of your own) to its `tools`.
 */
export interface LangChainBridge {
  /**
   * The approval provider for `createHost({ approval })`: dsh's `ask` becomes a LangGraph interrupt.
   * @deprecated Make the bridge with `langchainBridge(host, { approvals })` and give
   * `langchainApprovals().provider` to `createHost`.
   */
  readonly approval: ApprovalProvider;
  /**
   * The middleware that runs every tool call of the agent (dsh's and
   * LangChain's own tools) through the bridge's host. `host` is needed only
   * by a bridge made without one (the deprecated `langchainBridge(options)`).
   */
  middleware(host?: Host): DshMiddleware;
  /** LangChain tools for the host's dsh tools (all, or `include`, minus `exclude`). */
  tools(options?: DshToolsOptions): DynamicStructuredTool[];
  /** @deprecated For a bridge made with `langchainBridge(options)`: make it with `langchainBridge(host)` and call `tools(options)`. */
  tools(host: Host, options?: DshToolsOptions): DynamicStructuredTool[];
  /** The calls waiting for a person (an interrupt not yet resumed). */
  pending(): PendingApproval[];
  /**
   * Settles once every call the bridge has seen so far has its `tool/result`
   * in the session log's sink. A graph run can return before its calls do
   * (an interrupt ends v1's tool node while its other calls still run); await
   * this before reading the log or closing the host. Calls waiting for a
   * person are not waited for: they end when the graph is resumed with an
   * answer, at `cancelPending()`, or at the host's `approvalTimeoutMs`.
   */
  settled(): Promise<void>;
  /** @deprecated Use {@link LangChainBridge.settled}; this is the same function. */
  idle(): Promise<void>;
  /** Ends waiting calls (all, or `callId`) as `cancelled`, so each gets its one result; returns how many. */
  cancelPending(callId?: string): number;
}

/** True for a dsh host (what `createHost` returns), false for an options object. */
function isHost(value: unknown): value is Host {
  return typeof value === 'object' && value !== null && typeof (value as Host).runStep === 'function' && 'hooks' in value;
}

/**
 * Bridges a LangChain agent to `host`: give `bridge.middleware()` to
 * `createAgent({ middleware })` and `bridge.tools()` (with any LangChain tools
 * of your own) to its `tools`. With `approvals` (a `langchainApprovals()`
 * whose `provider` the host was created with), dsh's asks become LangGraph
 * interrupts. A bad option throws `LANGCHAIN_INVALID_OPTIONS` naming the field.
 */
export function langchainBridge(host: Host, options?: LangChainHostBridgeOptions): LangChainBridge;
/**
 * Makes a bridge before its host: give `approval` to `createHost`, then the
 * host to `middleware(host)` and `tools(host)`.
 * @deprecated Use `langchainBridge(host, { approvals: langchainApprovals() })`.
 */
export function langchainBridge(options?: LangChainBridgeOptions): LangChainBridge;
export function langchainBridge(hostOrOptions?: Host | LangChainBridgeOptions, options?: LangChainHostBridgeOptions): LangChainBridge {
  if (!isHost(hostOrOptions)) return makeBridge(parseOptions('langchainBridge', bridgeOptionsSchema, hostOrOptions));
  const { approvals, ...rest } = parseOptions('langchainBridge', hostBridgeOptionsSchema, options);
  // Attached first, so that approvals already in use fail before anything is tapped on the host.
  let bridge: LangChainBridge | undefined;
  approvals?.attach((request) => (bridge as LangChainBridge).approval(request));
  bridge = makeBridge(approvals?.fallback === undefined ? rest : { ...rest, fallback: approvals.fallback }, hostOrOptions);
  return bridge;
}

function makeBridge(o: z.output<typeof bridgeOptionsSchema>, boundHost?: Host): LangChainBridge {
  const approvals = new GraphApprovals(o.fallback);
  const dshTools = new WeakSet<object>();
  let state: BridgeState | undefined;
  const settled = () => (state === undefined ? Promise.resolve() : state.settled());

  const stateFor = (host: Host): BridgeState => {
    if (state !== undefined) {
      if (state.host !== host) {
        throw new LangChainBridgeError(
          LangChainErrorCode.INVALID_OPTIONS,
          'host: this bridge serves another host; make one bridge per host',
        );
      }
      return state;
    }
    const s = new BridgeState(host, approvals, new Set(o.parallelTools ?? []), o.maxParallel ?? 10);
    // Outermost on dispatch: within one AI message, bodies start in the model's order.
    // Each waits only when an earlier call holds it back: reading the call's signal makes an AbortSignal,
    // which costs more than the rest of a call that has nothing to wait for.
    host.hooks.execute.tap({ name: 'langchain/start-order', stage: -1_000_000 }, (ctx, next) => {
      const run = s.runs.get(ctx.call.id);
      if (run === undefined || run.name !== ctx.call.name) return next();
      run.parallel = ctx.tool.parallel === true;
      run.enter('admitted');
      const group = run.group;
      if (group === undefined || group.mayStart(run)) {
        run.enter('running');
        return next();
      }
      return group.turnToStart(run, ctx.signal).then(() => {
        run.enter('running');
        return next();
      });
    });
    // Last after dispatch (denied calls pass here too): results commit in the model's order.
    host.hooks.postExecute.tap({ name: 'langchain/commit-order', stage: 1_000_000, timeoutMs: longestTimer }, (post) => {
      const run = s.runs.get(post.call.id);
      if (run === undefined || run.name !== post.call.name) return undefined;
      run.enter('finishing');
      const group = run.group;
      if (group === undefined || group.mayCommit(run)) return undefined;
      return group.turnToCommit(run, post.signal).then(() => undefined);
    });
    state = s;
    return s;
  };

  const hostOf = (host: Host | undefined, where: string): Host => {
    const chosen = host ?? state?.host;
    if (chosen === undefined) {
      throw new LangChainBridgeError(LangChainErrorCode.INVALID_OPTIONS, `${where}: host: this bridge has no host yet; pass it`);
    }
    return chosen;
  };
  if (boundHost !== undefined) stateFor(boundHost);

  return {
    approval: approvals.provider,
    middleware(host) {
      const s = stateFor(hostOf(host, 'middleware'));
      const isDshTool = (tool: unknown) => typeof tool === 'object' && tool !== null && dshTools.has(tool);
      return createMiddleware({
        name: o.name ?? 'dsh',
        wrapToolCall: (request, handler) => runCall(s, isDshTool, request, handler) as ReturnType<typeof handler>,
        // createAgent drops the calls LangChain could not parse: hand them to the tool node, so each gets its result.
        wrapModelCall: async (request, handler) => admitInvalidCalls(s, await handler(request)) as Awaited<ReturnType<typeof handler>>,
      });
    },
    tools(hostOrOptions?: Host | DshToolsOptions, toolsOptions?: DshToolsOptions) {
      const host = hostOf(isHost(hostOrOptions) ? hostOrOptions : undefined, 'tools');
      const t = parseOptions('tools', toolsOptionsSchema, isHost(hostOrOptions) ? toolsOptions : hostOrOptions);
      stateFor(host);
      return dshLangChainTools(host, t.include, t.exclude, (tool) => dshTools.add(tool));
    },
    pending: () => approvals.pending(),
    settled,
    idle: settled,
    cancelPending: (callId) => approvals.cancelPending(callId),
  };
}
