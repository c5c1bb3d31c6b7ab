import {
  type ApprovalProvider,
  type ApprovalReply,
  type ApprovalRequest,
  defineTool,
  type Host,
  exactJsonText as jsonText,
  type Outcome,
  outcomeText,
  z,
} from '@deepseek-ai/dsh-core';
import { type FunctionTool, RunContext, type RunState, type RunToolApprovalItem } from '@openai/agents-core';
import { type DecisionRecord, memoryDecisionStore } from './decision-store.js';
import { AgentsBridgeError, AgentsErrorCode } from './errors.js';
import { Flight, type SdkCallSide, type Settled } from './internal/flight.js';
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
   * Gives dsh the person's rejections recorded in `state` (`state.reject(item)`)
   * and resolves once each rejected call has its one (denied) result. Approvals
   * need no such call: the SDK invokes an approved call, and that answers dsh.
   * Call it after answering the interruptions, before resuming the run.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any run state, whatever its context and agent types.
  settle(state: RunState<any, any>): Promise<void>;
  /** What dsh asked about for an interruption (the tool, the effective arguments, the reason), from the store. */
  describe(item: RunToolApprovalItem): Promise<DecisionRecord | undefined>;
  /**
   * What failed after a call already had its result, which stood: a store write
   * (a later restore of the same state may run the call again) or an `onContext` listener.
   */
  problems(): readonly Error[];
}

const approvedMessage = 'approved in the OpenAI Agents run';

/**
 * Makes the bridge between the OpenAI Agents SDK's loop and a dsh host. Give
 * `bridge.approval` to `createHost`, then `bridge.tools(host)` (and
 * `bridge.wrap(host, tool)` for the SDK's own tools) to the agent.
 *
 * Each call starts through the pipeline at the tool's `needsApproval`: if dsh
 * asks, the SDK interrupts the run and dsh's approval stays open until the
 * person answers (`state.approve` then resume: the call runs; `state.reject`
 * then `bridge.settle(state)`: the call is denied).
 */
export function openaiAgents(options: AgentsBridgeOptions = {}): AgentsBridge {
  const o = parseOptions<AgentsBridgeOptions>(agentsBridgeOptionsSchema, options, 'openaiAgents');
  const store = o.store ?? memoryDecisionStore();
  const flights = new Map<string, Flight>();
  // biome-ignore lint/suspicious/noExplicitAny: see wrap.
  const wrapped = new Map<string, FunctionTool<any, any, any>>();
  const problems: Error[] = [];
  let bound: Host | undefined;

  function bind(host: Host): Host {
    if (bound !== undefined && bound !== host) {
      throw new AgentsBridgeError(
        AgentsErrorCode.HOST_MISMATCH,
        'openaiAgents: this bridge already serves another host; make one bridge per host',
      );
    }
    bound = host;
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
    void (async () => {
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
      if (flight.recorded) await record(host, flight, settled);
      flight.finish(settled);
    })();
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
    const recorded = await store.get(keyOf(host, callId));
    if (recorded?.state === 'settled') return false;
    // A restored run that nobody answered yet: it interrupts again on the same call.
    if (recorded?.state === 'pending') return true;
    const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : jsonText(input);
    return start(host, callId, name, args, { runContext, signal: undefined }).decided;
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
      const recorded = call === undefined ? undefined : await store.get(keyOf(host, callId));
      if (recorded?.state === 'settled') return recorded.text;
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
    return sdkFunctionTool({
      name,
      description,
      parameters,
      strict,
      needsApproval: (runContext, input, callId) => needsApproval(host, name, runContext, input, callId),
      invoke: (runContext, input, details) => invoke(host, name, runContext, input, details),
    });
  }

  return {
    approval,
    tools(host, toolsOptions) {
      bind(host);
      const { names } = parseOptions<ToolsOptions>(toolsOptionsSchema, toolsOptions, 'bridge.tools');
      const schemas = host.tools.schemas().filter((schema) => !wrapped.has(schema.name));
      if (names !== undefined) {
        const missing = names.filter((n) => !schemas.some((schema) => schema.name === n));
        if (missing.length > 0) {
          throw new AgentsBridgeError(
            AgentsErrorCode.UNKNOWN_TOOL,
            `bridge.tools: no dsh tool named ${missing.join(', ')}; the host has ${schemas.map((s) => s.name).join(', ')}`,
          );
        }
      }
      return schemas
        .filter((schema) => names === undefined || names.includes(schema.name))
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
      if (wrapped.size === 0) tapOwnApproval(host);
      host.tools.register(
        defineTool({
          name: sdkTool.name,
          description: sdkTool.description,
          // The SDK tool validates its own arguments; dsh passes any object through.
          input: z.looseObject({}),
          execute: async (args, ctx) => {
            const side = flights.get(ctx.call.id)?.side;
            const output = await sdkTool.invoke(side?.runContext ?? new RunContext(), jsonText(args), {
              toolCall: { type: 'function_call', callId: ctx.call.id, name: sdkTool.name, arguments: jsonText(args) },
              // Made when the tool reads it: an AbortSignal costs more than the rest of a call, and most tools never look.
              get signal(): AbortSignal {
                return ctx.signal;
              },
            });
            return output as never;
          },
        }),
      );
      wrapped.set(sdkTool.name, sdkTool);
      return bridged(host, sdkTool.name, sdkTool.description, sdkTool.parameters, sdkTool.strict);
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
        // Approved or unanswered calls wait for the resumed run: only rejections settle here.
        if (runContext.isToolApproved({ toolName: name, callId: raw.callId }) !== false) continue;
        const flight = flights.get(raw.callId);
        if (flight !== undefined) {
          waits.push(flight.settled);
          continue;
        }
        const recorded = await store.get(keyOf(host, raw.callId));
        if (recorded?.state !== 'pending') continue;
        // A fresh process: the call runs through the pipeline again and dsh gets the rejection at once.
        const message = runContext.getRejectionMessage(name, raw.callId) ?? 'rejected in the OpenAI Agents run';
        const restarted = start(host, raw.callId, name, raw.arguments, { runContext, signal: undefined }, { answer: 'rejected', message });
        waits.push(restarted.settled.then(() => flights.delete(raw.callId)));
      }
      await Promise.all(waits.map((wait) => wait.then(() => undefined)));
    },
    async describe(item) {
      const raw = item.rawItem;
      if (raw.type !== 'function_call') return undefined;
      return store.get(keyOf(hostOf('bridge.describe'), raw.callId));
    },
    problems: () => [...problems],
  };

  function tapOwnApproval(host: Host): void {
    // A wrapped SDK tool's own needsApproval still asks: it can raise dsh's decision to ask, never lower it.
    host.hooks.preExecute.tap({ name: 'openai-agents', stage: 100 }, async (state) => {
      const own = wrapped.get(state.call.name);
      if (own === undefined || state.decision !== 'allow') return undefined;
      const runContext = flights.get(state.call.id)?.side.runContext ?? new RunContext();
      if (!(await own.needsApproval(runContext, state.args as never, state.call.id))) return undefined;
      return { decision: 'ask', reason: `${state.call.name}'s own needsApproval asked for approval` };
    });
  }
}
