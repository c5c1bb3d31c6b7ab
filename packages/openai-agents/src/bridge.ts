import {
  type ApprovalProvider,
  type ApprovalReply,
  type ApprovalRequest,
  DshError,
  defineTool,
  ErrorCode,
  type Host,
  exactJsonText as jsonText,
  messageOf,
  type Outcome,
  outcomeText,
  z,
} from '@deepseek-ai/dsh-core';
import {
  type FunctionTool,
  RunContext,
  type RunState,
  type RunToolApprovalItem,
  tool as sdkToolOf,
  type ToolErrorFormatter,
  type ToolInputParameters,
  type ToolNotFoundBehavior,
  type ToolOptions,
  type UnknownContext,
} from '@openai/agents-core';
import { type DecisionRecord, memoryDecisionStore } from './decision-store.js';
import { AgentsBridgeError, AgentsErrorCode } from './errors.js';
import { Flight, type SdkCallSide, type Settled } from './internal/flight.js';
import { enforceOwnApproval } from './internal/own-approval.js';
import { ResultOrder } from './internal/result-order.js';
import { type BridgedTool, type InvokeDetails, plainSchema, sdkFunctionTool } from './internal/sdk-tool.js';
import { type AgentsBridgeOptions, agentsBridgeOptionsSchema, parseOptions, type ToolsOptions, toolsOptionsSchema } from './options.js';

export type { BridgedTool } from './internal/sdk-tool.js';

/** The OpenAI Agents SDK as a front end of one dsh host: see {@link openaiAgents}. */
export interface AgentsBridge {
  /** The approval provider to give `createHost` (`approval: bridge.approval`): dsh's asks become run interruptions. */
  readonly approval: ApprovalProvider;
  /** The host's dsh tools as SDK function tools (every one, or `names`): their `needsApproval` and `invoke` run the pipeline. */
  tools(host: Host, options?: ToolsOptions): BridgedTool[];
  /**
   * Registers an SDK function tool with the host as a dsh tool (hooks, rules,
   * approval, guards, timeouts and the session log apply to it) and returns
   * the SDK tool to give the agent in its place.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any SDK function tool, whatever its context and parameter types.
  wrap(host: Host, sdkTool: FunctionTool<any, any, any>): BridgedTool;
  /**
   * The SDK's `tool(options)` through dsh: builds the tool with the SDK's own
   * `tool()`, registers it with the host like {@link AgentsBridge.wrap}, and
   * returns the SDK tool to give the agent. Unlike a wrapped tool, a throw of
   * its `execute` reaches dsh: the call is `TOOL_FAILED` (PostToolUseFailure
   * hooks fire), with the `errorFunction`'s text, when it has one, as the message.
   */
  tool<TParameters extends ToolInputParameters = undefined, Context = UnknownContext>(
    host: Host,
    options: ToolOptions<TParameters, Context>,
  ): BridgedTool;
  /**
   * Gives dsh the person's rejections recorded in `state` (`state.reject(item)`)
   * and resolves once each rejected call has its one (denied) result. Approvals
   * need no such call: the SDK invokes an approved call, and that answers dsh.
   * Call it after answering the interruptions, before resuming the run.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any run state, whatever its context and agent types.
  settle(state: RunState<any, any>): Promise<void>;
  /**
   * What dsh asked about for an interruption (the tool, the effective
   * arguments, the reason), from the store. For a call the SDK interrupted on
   * without asking dsh (arguments that are not a JSON object), dsh runs the
   * call now, logs its `INVALID_ARGS` result and returns it as a `settled`
   * record: nothing is left to ask the person, and `settle(state)` answers the
   * interruption (the SDK then gives the model its own parse error, which never runs the tool).
   * `undefined` only for an item that is not a function call of this bridge.
   */
  describe(item: RunToolApprovalItem): Promise<DecisionRecord | undefined>;
  /**
   * Resolves once every call the bridge has seen so far has its `tool/result`
   * in the session log's sink. A call waiting for a person settles when the
   * person's answer reaches dsh (or at `approvalTimeoutMs`).
   */
  settled(): Promise<void>;
  /**
   * Run options for the SDK's `Runner` (or `run`): a call to a tool the agent
   * does not have goes to the model as dsh's `UNKNOWN_TOOL` result, logged like
   * any call, instead of ending the run with `ModelBehaviorError`.
   */
  readonly runConfig: { readonly toolNotFoundBehavior: ToolNotFoundBehavior; readonly toolErrorFormatter: ToolErrorFormatter };
  /**
   * What failed after a call already had its result, which stood: a store write
   * (a later restore of the same state may run the call again) or an `onContext` listener.
   */
  problems(): readonly Error[];
}

const approvedMessage = 'approved in the OpenAI Agents run';
/** The longest timer Node keeps: the order observer waits on real results, which always come. */
const longestWaitMs = 2_147_483_647;

/**
 * The text of the SDK's default `errorFunction` (0.14 adds `Error: …`, 0.20 and
 * later stop there): a prebuilt tool's throw reaches the bridge only as this text.
 */
const sdkDefaultErrorText = 'An error occurred while running the tool. Please try again.';
const defaultErrorText = (output: unknown): boolean => typeof output === 'string' && output.startsWith(sdkDefaultErrorText);

/** True when `text` is JSON whose value is an object: what the SDK parses before it asks `needsApproval`. */
function isObjectJson(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Makes the bridge between the OpenAI Agents SDK's loop and a dsh host. Give
 * `bridge.approval` to `createHost`, then `bridge.tools(host)` (and
 * `bridge.wrap(host, tool)` for the SDK's own tools) to the agent.
 *
 * Each call starts through the pipeline at the tool's `needsApproval`: if dsh
 * asks, the SDK interrupts the run and dsh's approval stays open until the
 * person answers (`state.approve` then resume: the call runs; `state.reject`
 * then `bridge.settle(state)`: the call is denied).
 *
 * @deprecated Use `openaiAgentsBridge(host, { approvals })` with
 * `openaiAgentsApprovals()`: the same bridge, bound to its host at creation,
 * with the shape of the AI SDK and LangChain bridges.
 */
export function openaiAgents(options: AgentsBridgeOptions = {}): AgentsBridge {
  return createAgentsBridge(options, 'openaiAgents');
}

/** The bridge and the way to bind it to its host at once. @internal */
export function createAgentsBridge(options: AgentsBridgeOptions, where: string): AgentsBridge & { bind(host: Host): void } {
  const o = parseOptions<AgentsBridgeOptions>(agentsBridgeOptionsSchema, options, where);
  const store = o.store ?? memoryDecisionStore();
  const flights = new Map<string, Flight>();
  // biome-ignore lint/suspicious/noExplicitAny: see wrap.
  const wrapped = new Map<string, FunctionTool<any, any, any>>();
  const problems: Error[] = [];
  const order = new ResultOrder();
  /** Every call's run through the pipeline until its result is in the sink: what `settled()` waits for. */
  const inFlight = new Set<Promise<unknown>>();
  /** Calls dsh must log but never run (a tool the agent was not given), with the reason. */
  const refused = new Map<string, string>();
  /** The tools this bridge offered the SDK, by name. */
  const offered = new Set<string>();
  /** Calls the SDK interrupted on without asking dsh, being run through dsh by `describe`. */
  const unseen = new Map<string, Promise<DecisionRecord>>();
  let bound: Host | undefined;

  function bind(host: Host): Host {
    if (bound !== undefined && bound !== host) {
      throw new AgentsBridgeError(
        AgentsErrorCode.HOST_MISMATCH,
        'openaiAgents: this bridge already serves another host; make one bridge per host',
      );
    }
    if (bound === undefined) {
      bound = host;
      enforceOwnApproval(host, wrapped, (callId) => flights.get(callId)?.side.runContext, refused);
      host.hooks.result.tap({ name: 'openai-agents-order', timeoutMs: longestWaitMs }, (_outcome, { call }) => order.before(call.id));
    }
    return host;
  }
  function hostOf(where: string): Host {
    if (bound === undefined) {
      throw new AgentsBridgeError(
        AgentsErrorCode.INVALID_OPTIONS,
        `${where}: no host yet; call bridge.tools(host) or bridge.wrap(host, tool) first`,
      );
    }
    return bound;
  }
  const keyOf = (host: Host, callId: string) => `${host.session}:${callId}`;

  const approval: ApprovalProvider = async (request: ApprovalRequest) => {
    const flight = flights.get(request.call.id);
    if (flight === undefined || flight.tool !== request.call.name || bound === undefined) {
      if (o.fallbackApproval !== undefined) return o.fallbackApproval(request);
      return { answer: 'unavailable', message: 'no OpenAI Agents run made this call, and the bridge has no fallbackApproval' };
    }
    const key = keyOf(bound, flight.callId);
    const args = jsonText(request.args);
    if (flight.preAnswer !== undefined) {
      const record = await store.get(key);
      flight.recorded = record !== undefined;
      if (record !== undefined && record.args !== args && flight.preAnswer.answer === 'allowed-once') {
        return { answer: 'cancelled', message: 'the arguments differ from those the person approved, so the approval does not cover them' };
      }
      return flight.preAnswer;
    }
    const pending: DecisionRecord = {
      state: 'pending',
      session: bound.session,
      callId: flight.callId,
      tool: flight.tool,
      args,
      ...(request.reason === undefined ? {} : { reason: request.reason }),
    };
    // Written before the run learns it must interrupt: a state serialised after that finds the record.
    await store.set(key, pending);
    flight.recorded = true;
    // A call that waits for a person must not hold back the results of the calls after it.
    order.release(flight.callId);
    return flight.ask();
  };

  function start(
    host: Host,
    callId: string,
    name: string,
    args: string | Readonly<Record<string, unknown>>,
    side: SdkCallSide,
    preAnswer?: ApprovalReply,
  ): Flight {
    const flight = new Flight(callId, name, side);
    flight.preAnswer = preAnswer;
    flights.set(callId, flight);
    const run = (async () => {
      const step = await host.runStep({ calls: [{ id: callId, name, args }] }, side.signal === undefined ? {} : { signal: side.signal });
      const outcome: Outcome = step.results[0]?.outcome ?? {
        status: 'error',
        stage: 'step',
        error: step.error ?? { code: 'TOOL_FAILED', message: 'the step gave the call no result' },
      };
      if (step.context !== undefined && o.onContext !== undefined) {
        try {
          o.onContext(step.context, { id: callId, name });
        } catch (error) {
          // The call's result stands; a failing listener is reported, never a hang.
          problems.push(error instanceof Error ? error : new Error(String(error)));
        }
      }
      const settled: Settled = { outcome, text: outcomeText(outcome) };
      order.release(callId);
      if (flight.recorded) await record(host, flight, settled);
      flight.finish(settled);
    })();
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
    return flight;
  }

  async function record(host: Host, flight: Flight, settled: Settled): Promise<void> {
    const key = keyOf(host, flight.callId);
    try {
      const before = await store.get(key);
      await store.set(key, {
        state: 'settled',
        session: host.session,
        callId: flight.callId,
        tool: flight.tool,
        args: before?.args ?? '',
        ...(before?.reason === undefined ? {} : { reason: before.reason }),
        status: settled.outcome.status,
        text: settled.text,
      });
    } catch (error) {
      problems.push(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Answers dsh for every call the person rejected in this run context. */
  function reconcile(runContext: RunContext<unknown> | undefined): void {
    if (runContext === undefined) return;
    for (const flight of flights.values()) {
      if (!flight.waiting) continue;
      if (runContext.isToolApproved({ toolName: flight.tool, callId: flight.callId }) !== false) continue;
      const message = runContext.getRejectionMessage(flight.tool, flight.callId);
      flight.reply({ answer: 'rejected', message: message ?? 'rejected in the OpenAI Agents run' });
      void flight.settled.then(() => flights.delete(flight.callId));
    }
  }

  async function needsApproval(
    host: Host,
    name: string,
    runContext: RunContext<unknown>,
    input: unknown,
    callId: string | undefined,
  ): Promise<boolean> {
    reconcile(runContext);
    if (callId === undefined) return false;
    const existing = flights.get(callId);
    if (existing !== undefined) {
      existing.side.runContext = runContext;
      return existing.decided;
    }
    // Entered before the first await: the SDK hands a turn's calls over in the model's order.
    order.enter(callId, runContext);
    try {
      const recorded = await store.get(keyOf(host, callId));
      if (recorded?.state === 'settled') return false;
      // A restored run that nobody answered yet: it interrupts again on the same call.
      if (recorded?.state === 'pending') return true;
      const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : jsonText(input);
      return start(host, callId, name, args, { runContext, signal: undefined }).decided;
    } finally {
      if (!flights.has(callId)) order.release(callId);
    }
  }

  async function invoke(
    host: Host,
    name: string,
    runContext: RunContext<unknown>,
    input: unknown,
    details: InvokeDetails | undefined,
  ): Promise<string> {
    reconcile(runContext);
    const call = details?.toolCall;
    const callId = call?.callId ?? `openai-agents:${crypto.randomUUID()}`;
    let flight = flights.get(callId);
    if (flight !== undefined) {
      flight.side.runContext = runContext;
      flight.side.signal = details?.signal;
      // The SDK invokes a call it interrupted on only once the person approved it.
      flight.reply({ answer: 'allowed-once', message: approvedMessage });
    } else {
      order.enter(callId, runContext);
      let recorded: DecisionRecord | undefined;
      try {
        recorded = call === undefined ? undefined : await store.get(keyOf(host, callId));
      } catch (error) {
        order.release(callId);
        throw error;
      }
      if (recorded?.state === 'settled') {
        order.release(callId);
        return recorded.text;
      }
      const approved = runContext.isToolApproved({ toolName: name, callId }) === true;
      const preAnswer: ApprovalReply = approved
        ? { answer: 'allowed-once', message: recorded === undefined ? approvedMessage : `${approvedMessage} (restored)` }
        : { answer: 'unavailable', message: 'dsh asked approval, but the call reached invoke without the run asking the person' };
      const args = call?.arguments ?? jsonText(input);
      flight = start(host, callId, name, args, { runContext, signal: details?.signal }, preAnswer);
    }
    const { text } = await flight.settled;
    flights.delete(callId);
    return text;
  }

  function bridged(host: Host, name: string, description: string, parameters: unknown, strict: boolean): BridgedTool {
    offered.add(name);
    return sdkFunctionTool({
      name,
      description,
      parameters,
      strict,
      needsApproval: (runContext, input, callId) => needsApproval(host, name, runContext, input, callId),
      invoke: (runContext, input, details) => invoke(host, name, runContext, input, details),
    });
  }

  /**
   * Registers `sdkTool` with the host as a dsh tool whose body is its `invoke`.
   * `failed`, when given, turns what `invoke` threw into the error dsh logs.
   */
  function registerWrapped(
    host: Host,
    // biome-ignore lint/suspicious/noExplicitAny: see wrap.
    sdkTool: FunctionTool<any, any, any>,
    failed?: (error: unknown, runContext: RunContext<unknown>, details: unknown) => Promise<unknown>,
    failedText?: (output: unknown) => boolean,
  ): BridgedTool {
    host.tools.register(
      defineTool({
        name: sdkTool.name,
        description: sdkTool.description,
        // The SDK tool validates its own arguments; dsh passes any object through.
        input: z.looseObject({}),
        execute: async (args, ctx) => {
          const runContext = flights.get(ctx.call.id)?.side.runContext ?? new RunContext();
          const details = {
            toolCall: { type: 'function_call' as const, callId: ctx.call.id, name: sdkTool.name, arguments: jsonText(args) },
            // Made when the tool reads it: an AbortSignal costs more than the rest of a call, and most tools never look.
            get signal(): AbortSignal {
              return ctx.signal;
            },
          };
          try {
            const output = await sdkTool.invoke(runContext, jsonText(args), details);
            if (failedText?.(output) === true) throw new DshError(ErrorCode.TOOL_FAILED, output as string);
            return output as never;
          } catch (error) {
            if (failed === undefined || ctx.signal.aborted) throw error;
            throw await failed(error, runContext, details);
          }
        },
      }),
    );
    wrapped.set(sdkTool.name, sdkTool);
    return bridged(host, sdkTool.name, sdkTool.description, sdkTool.parameters, sdkTool.strict);
  }

  /** Runs a call the SDK interrupted on without asking dsh through the pipeline, once, and keeps its settled record. */
  function runUnseen(host: Host, callId: string, name: string, args: string): Promise<DecisionRecord> {
    const running = unseen.get(callId);
    if (running !== undefined) return running;
    const flight = start(
      host,
      callId,
      name,
      args,
      { runContext: undefined, signal: undefined },
      // Never an approval: the call could not be shown to the person as dsh would run it.
      { answer: 'rejected', message: 'the SDK interrupted on this call without asking dsh' },
    );
    const result = flight.settled.then(async ({ outcome, text }) => {
      flights.delete(callId);
      const record: DecisionRecord = {
        state: 'settled',
        session: host.session,
        callId,
        tool: name,
        args,
        reason: text,
        status: outcome.status,
        text,
      };
      try {
        await store.set(keyOf(host, callId), record);
      } catch (error) {
        problems.push(error instanceof Error ? error : new Error(String(error)));
      }
      return record;
    });
    unseen.set(callId, result);
    return result;
  }

  /** dsh's record of an interruption's call, running it through dsh first when dsh never saw it. */
  async function recordOf(host: Host, item: RunToolApprovalItem): Promise<DecisionRecord | undefined> {
    const raw = item.rawItem;
    if (raw.type !== 'function_call') return undefined;
    const name = item.name ?? raw.name;
    const recorded = await store.get(keyOf(host, raw.callId));
    if (recorded !== undefined || !offered.has(name) || flights.has(raw.callId)) return recorded;
    // The SDK asks the person without asking dsh only when the arguments are not a JSON object.
    if (!isObjectJson(raw.arguments)) return runUnseen(host, raw.callId, name, raw.arguments);
    return undefined;
  }

  const toolErrorFormatter: ToolErrorFormatter = async ({ kind, toolName, callId, runContext }) => {
    if (kind !== 'tool_not_found' || bound === undefined) return undefined;
    const host = bound;
    // A dsh tool the agent was not given is still a tool the agent does not have: logged, never run.
    if (host.tools.schemas().some((schema) => schema.name === toolName)) {
      refused.set(callId, `the agent has no tool named ${toolName}`);
    }
    // The SDK does not pass the arguments of such a call: dsh logs an empty object.
    const flight = start(
      host,
      callId,
      toolName,
      {},
      { runContext, signal: undefined },
      { answer: 'rejected', message: 'not a tool of the agent' },
    );
    const { text } = await flight.settled;
    flights.delete(callId);
    return text;
  };

  return {
    bind: (host) => void bind(host),
    approval,
    tools(host, toolsOptions) {
      bind(host);
      const { include, exclude, names } = parseOptions<ToolsOptions>(toolsOptionsSchema, toolsOptions, 'bridge.tools');
      if (include !== undefined && names !== undefined) {
        throw new AgentsBridgeError(
          AgentsErrorCode.INVALID_OPTIONS,
          'bridge.tools: names: a deprecated alias of include; give one of them',
        );
      }
      const schemas = host.tools.schemas().filter((schema) => !wrapped.has(schema.name));
      const chosen = include ?? names;
      const missing = [...(chosen ?? []), ...(exclude ?? [])].filter((n) => !schemas.some((schema) => schema.name === n));
      if (missing.length > 0) {
        throw new AgentsBridgeError(
          AgentsErrorCode.UNKNOWN_TOOL,
          `bridge.tools: no dsh tool named ${missing.join(', ')}; the host has ${schemas.map((s) => s.name).join(', ')}`,
        );
      }
      return schemas
        .filter((schema) => (chosen === undefined || chosen.includes(schema.name)) && !exclude?.includes(schema.name))
        .map((schema) => bridged(host, schema.name, schema.description, plainSchema(schema.inputSchema), false));
    },
    wrap(host, sdkTool) {
      bind(host);
      if (typeof sdkTool !== 'object' || sdkTool === null || sdkTool.type !== 'function' || typeof sdkTool.invoke !== 'function') {
        throw new AgentsBridgeError(
          AgentsErrorCode.TOOL_NOT_WRAPPABLE,
          'bridge.wrap: only function tools run through dsh; hosted, computer, shell and apply-patch tools do not',
        );
      }
      return registerWrapped(host, sdkTool, undefined, defaultErrorText);
    },
    tool(host, toolOptions) {
      bind(host);
      const { errorFunction } = toolOptions as { errorFunction?: ((...args: never[]) => unknown) | null };
      // Without an errorFunction the SDK's invoke rethrows what execute threw, so dsh sees the failure.
      // biome-ignore lint/suspicious/noExplicitAny: see wrap.
      const inner = sdkToolOf({ ...toolOptions, errorFunction: null } as never) as FunctionTool<any, any, any>;
      return registerWrapped(host, inner, async (error, runContext, details) => {
        let message = messageOf(error);
        if (typeof errorFunction === 'function') {
          try {
            message = String(await (errorFunction as (c: unknown, e: unknown, d: unknown) => unknown)(runContext, error, details));
          } catch (thrown) {
            message = messageOf(thrown);
          }
        }
        return new DshError(ErrorCode.TOOL_FAILED, message, { cause: error });
      });
    },
    async settle(state) {
      const host = hostOf('bridge.settle');
      const runContext = state._context as RunContext<unknown>;
      reconcile(runContext);
      const waits: Promise<unknown>[] = [];
      for (const item of state.getInterruptions()) {
        const raw = item.rawItem;
        if (raw.type !== 'function_call') continue;
        const name = item.name ?? raw.name;
        const answer = runContext.isToolApproved({ toolName: name, callId: raw.callId });
        if (answer === undefined && !flights.has(raw.callId)) {
          // dsh settled the call (nothing runs): approving lets the SDK give the model its parse error
          // (or dsh's recorded result), where a rejection would only say "not approved".
          const record = await recordOf(host, item);
          if (record?.state === 'settled') state.approve(item);
          continue;
        }
        // Approved or unanswered calls wait for the resumed run: only rejections settle here.
        if (answer !== false) continue;
        const flight = flights.get(raw.callId);
        if (flight !== undefined) {
          waits.push(flight.settled);
          continue;
        }
        const recorded = await store.get(keyOf(host, raw.callId));
        if (recorded === undefined) {
          waits.push(recordOf(host, item));
          continue;
        }
        if (recorded.state !== 'pending') continue;
        // A fresh process: the call runs through the pipeline again and dsh gets the rejection at once.
        const message = runContext.getRejectionMessage(name, raw.callId) ?? 'rejected in the OpenAI Agents run';
        const restarted = start(host, raw.callId, name, raw.arguments, { runContext, signal: undefined }, { answer: 'rejected', message });
        waits.push(restarted.settled.then(() => flights.delete(raw.callId)));
      }
      await Promise.all(waits.map((wait) => wait.then(() => undefined)));
    },
    async describe(item) {
      return recordOf(hostOf('bridge.describe'), item);
    },
    async settled() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
    runConfig: { toolNotFoundBehavior: 'return_error_to_model', toolErrorFormatter },
    problems: () => [...problems],
  };
}
