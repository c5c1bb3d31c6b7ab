import { exactJsonText as jsonText, type Outcome, outcomeText, z } from '@deepseek-ai/dsh-core';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { BridgeState } from './bridge-state.js';
import { CallRun } from './call-run.js';
import { LangChainErrorCode } from './errors.js';
import { frameworkOutput } from './framework-result.js';

/** The parts of LangChain's `ToolCallRequest` the bridge reads. */
export interface BridgedRequest {
  readonly toolCall: { readonly id?: string | undefined; readonly name: string; readonly args: Record<string, unknown> };
  readonly tool?: unknown;
  readonly state?: unknown;
}

/** LangChain's handler: runs the tool (or the next middleware) for a request. */
export type BridgedHandler<R extends BridgedRequest> = (request: R) => unknown;

/** Whether `tool` is one of the LangChain tools `bridge.tools(host)` made for dsh tools. */
export type IsDshTool = (tool: unknown) => boolean;

/**
 * Runs one LangChain tool call through the dsh pipeline and answers with what
 * the model reads (a ToolMessage, or the framework's own Command). Keyed by
 * tool call id: a call already settled gets its remembered answer; a call in
 * flight (the node re-ran after an interrupt) is joined, never started again,
 * so its `tool/call` event and pre-execute hooks happen once.
 */
export async function runCall<R extends BridgedRequest>(
  state: BridgeState,
  isDshTool: IsDshTool,
  request: R,
  handler: BridgedHandler<R>,
): Promise<unknown> {
  const { id, name } = request.toolCall;
  if (id === undefined || id === '') {
    return errorMessage(LangChainErrorCode.MISSING_TOOL_CALL_ID, `the tool call to ${name} has no id`, '', name);
  }
  const answered = state.answered(id);
  if (answered !== undefined) return answered;
  let run = state.runs.get(id);
  if (run === undefined) {
    const framework = request.tool !== undefined && !isDshTool(request.tool);
    if (framework) {
      if (!ensureFrameworkTool(state, name, request.tool)) {
        const text = `the host already has a tool named "${name}"; rename the LangChain tool`;
        return errorMessage(LangChainErrorCode.TOOL_NAME_TAKEN, text, id, name);
      }
    }
    run = new CallRun(id, name);
    state.runs.set(id, run);
    state.approvals.track(run);
    joinGroup(state, run, request.state);
    bindBody(run, framework, request, handler);
    // A call LangChain refused runs with the arguments as the model sent them: core says what is wrong.
    start(state, run, state.refused.get(id)?.args ?? request.toolCall.args, signalOf(request));
  } else if (run.phase === 'queued' || run.phase === 'admitting' || run.phase === 'asking') {
    // The node re-ran: its body, if it runs at all, runs with this run's handler and config.
    bindBody(run, run.frameworkBody !== undefined, request, handler);
  }
  return answer(state, run);
}

function bindBody<R extends BridgedRequest>(run: CallRun, framework: boolean, request: R, handler: BridgedHandler<R>): void {
  if (!framework) return;
  run.frameworkBody = async (args) => handler({ ...request, toolCall: { ...request.toolCall, args } });
}

function signalOf(request: BridgedRequest): AbortSignal | undefined {
  const signal = (request as { runtime?: { signal?: unknown } }).runtime?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

function start(state: BridgeState, call: CallRun, args: Record<string, unknown> | string, signal: AbortSignal | undefined): void {
  const admitted = call.group === undefined ? Promise.resolve() : call.group.turnToAdmit(call);
  void admitted.then(async () => {
    call.enter('admitting');
    const step = { calls: [{ id: call.id, name: call.name, args }] };
    const result = await state.host.runStep(step, signal === undefined ? {} : { signal });
    const outcome: Outcome = result.results[0]?.outcome ?? {
      status: 'error',
      stage: 'validate',
      error: { code: result.error?.code ?? 'TOOL_FAILED', message: result.error?.message ?? 'the step did not run' },
    };
    call.outcome = outcome;
    state.settle(call, modelAnswer(call, outcome));
  });
}

async function answer(state: BridgeState, run: CallRun): Promise<unknown> {
  for (;;) {
    if (run.phase === 'settled') return state.answered(run.id);
    const question = run.question;
    if (question !== undefined) {
      // Throws GraphInterrupt the first time; answers from the resume value bound to this call once resumed.
      state.interrupts.ask(question);
      continue;
    }
    await run.nextChange();
  }
}

/** What the model reads: the framework's own answer when dsh let its output through unchanged, else dsh's. */
function modelAnswer(run: CallRun, outcome: Outcome): unknown {
  const own = run.frameworkResult;
  if (outcome.status === 'ok' && own !== undefined) {
    try {
      if (jsonText(frameworkOutput(own, run.id)) === jsonText(outcome.output)) return own;
    } catch {
      // The framework answered with an error a post-execute tap turned into output: dsh's answer stands.
    }
  }
  const status = outcome.status === 'ok' ? 'success' : 'error';
  return new ToolMessage({ content: outcomeText(outcome), tool_call_id: run.id, name: run.name, status });
}

// A call the pipeline never saw: the model still gets one answer, in the same words as dsh's errors.
function errorMessage(code: LangChainErrorCode, text: string, id: string, name: string): ToolMessage {
  return new ToolMessage({ content: `Error (${code}): ${text}`, tool_call_id: id, name, status: 'error' });
}

/** Registers LangChain tool `name` on the host as a dsh tool whose body is the framework's handler; false if the name is taken. */
function ensureFrameworkTool(state: BridgeState, name: string, tool: unknown): boolean {
  if (state.frameworkTools.has(name)) return true;
  if (state.host.tools.get(name) !== undefined) return false;
  const description = (tool as { description?: unknown }).description;
  state.host.tools.register({
    name,
    description: typeof description === 'string' ? description : `LangChain tool ${name}`,
    // LangChain validates against the tool's own schema when the handler runs; dsh sees the object as sent.
    input: z.record(z.string(), z.unknown()),
    parallel: state.parallelTools.has(name),
    execute: async (args, ctx) => {
      const run = state.runs.get(ctx.call.id);
      if (run?.frameworkBody === undefined) {
        throw new Error(`${name} is a LangChain tool: it runs only inside the agent's tool node`);
      }
      const result = await run.frameworkBody(args as Readonly<Record<string, unknown>>);
      run.frameworkResult = result;
      return frameworkOutput(result, run.id);
    },
  });
  state.frameworkTools.add(name);
  return true;
}

/** Puts `run` into the group of its AI message, at the position the model gave it. */
function joinGroup(state: BridgeState, run: CallRun, graphState: unknown): void {
  const messages = (graphState as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as BaseMessage;
    if (!AIMessage.isInstance(message)) continue;
    const ids = (message.tool_calls ?? []).map((call) => call.id);
    const index = ids.indexOf(run.id);
    if (index < 0) continue;
    state.group(message.id ?? ids.join('\u0000')).join(run, index);
    return;
  }
}
