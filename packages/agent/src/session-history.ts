import { type AnySessionEvent, type ContextMessage, exactJsonText, type Outcome, type ResumedSession } from '@deepseek-ai/dsh-core';
import { AgentError, AgentErrorCode } from './errors.js';
import { AGENT_TURN_EVENT, type AgentTurnEventData } from './events.js';
import type { AgentMessage, AssistantMessage, ToolResultEntry, ToolResultsMessage } from './messages.js';
import type { ModelToolCall, StopReason } from './model.js';
import { resultEntry } from './result-text.js';

/** What {@link historyFromSession} rebuilds from, besides the events. */
export interface SessionHistoryOptions {
  /**
   * The history the logged run started from (the task): the log holds no
   * user messages, so they are put first. Default: none.
   */
  readonly messages?: readonly AgentMessage[];
  /**
   * What `resumeSession` answered, when `events` were loaded before the
   * resume: it gives the calls the events leave unanswered their results,
   * and the re-runs' context.
   */
  readonly resumed?: ResumedSession;
  /** Rebuild a nested loop's history (a subagent's): the id of the call it ran under. Default: the top-level loop. */
  readonly parent?: string;
}

/** One call of a logged turn, as the log fills it in. */
interface CallSlot {
  readonly id: string;
  readonly callId: string;
  readonly name: string;
  args?: string;
  outcome?: { readonly name: string; readonly outcome: Outcome };
}

/** One logged turn and what followed it. */
interface TurnSlot {
  readonly data: AgentTurnEventData;
  readonly calls: CallSlot[];
  context?: string;
}

/**
 * Rebuilds the neutral history `runAgent` built from a session's events
 * (`loadSessionLog(path).events`, or `host.events.list()`), so a resumed
 * loop continues where the log ends.
 *
 * Each `agent/turn` event becomes its assistant message (text, calls in the
 * model's order under the provider's ids, stop, usage), each call's
 * arguments the JSON text of its `tool/call` event, untouched; each turn
 * with calls is followed by one results message with one entry per call,
 * the text the loop gave the model (denials, errors and `TOOL_INTERRUPTED`
 * included), and the step's `context/message` after them.
 *
 * What the log does not hold is not rebuilt: user messages (pass them as
 * `messages`), readable reasoning and provider data (adapters rebuild the
 * turn from its neutral fields), turns a `beforeRequest` hook compacted away.
 * A call of a turn with no `tool/call` event never reached the pipeline
 * (the process died first): it is left out of its turn, and a turn left
 * with neither text nor calls is left out.
 *
 * Throws `AGENT_SESSION_UNANSWERED` when a call has a `tool/call` but no
 * logged result (`loadSessionLog`'s synthetic results are not taken) and
 * `resumed` does not answer it: resume the session first.
 */
export function historyFromSession(events: readonly AnySessionEvent[], options: SessionHistoryOptions = {}): AgentMessage[] {
  const turns = turnsOf(events, options.parent);
  if (options.resumed !== undefined) applyResumed(turns, options.resumed);
  const history: AgentMessage[] = [...(options.messages ?? [])];
  for (const turn of turns) history.push(...messagesOf(turn));
  return history;
}

function turnsOf(events: readonly AnySessionEvent[], parent: string | undefined): TurnSlot[] {
  const turns: TurnSlot[] = [];
  // The calls the latest turn still waits to see logged: a turn's `tool/call` events come before the next turn's.
  let awaiting = new Map<string, CallSlot[]>();
  // Logged calls without a result yet, by logged id: a resume's results (and re-runs) answer them later.
  const unanswered = new Map<string, CallSlot[]>();
  const turnOfCall = new Map<string, TurnSlot>();
  for (const event of events) {
    if (event.type === AGENT_TURN_EVENT) {
      const data = event.data as AgentTurnEventData;
      if (data.parent !== parent) continue;
      const turn: TurnSlot = { data, calls: data.calls.map((c) => ({ id: c.id, callId: c.callId, name: c.name })) };
      turns.push(turn);
      awaiting = new Map();
      for (const slot of turn.calls) push(awaiting, slot.callId, slot);
      continue;
    }
    if (event.type === 'context/message') {
      const turn = event.data.parts.map((p) => turnOfCall.get(p.call)).find((t) => t !== undefined);
      if (turn !== undefined) addContext(turn, event.data.text);
      continue;
    }
    if (event.call === undefined) continue;
    if (event.type === 'tool/call') {
      if (event.data.parent !== parent) continue;
      // A re-run after a resume is logged again under the same id; the first `tool/call` is the model's.
      const slot = awaiting.get(event.call)?.shift();
      if (slot === undefined) continue;
      slot.args = typeof event.data.args === 'string' ? event.data.args : exactJsonText(event.data.args);
      push(unanswered, event.call, slot);
      const turn = turns.at(-1);
      if (turn !== undefined) turnOfCall.set(event.call, turn);
    } else if (event.type === 'tool/result' && event.data.synthetic !== true) {
      const slot = unanswered.get(event.call)?.shift();
      if (slot !== undefined) slot.outcome = { name: event.data.name, outcome: event.data.outcome };
    }
  }
  return turns;
}

/** Answers the calls the events left open from the resume, and adds its re-runs' context to their turn. */
function applyResumed(turns: readonly TurnSlot[], resumed: ResumedSession): void {
  const answers = new Map(resumed.resumed.map((r) => [r.id, r]));
  for (const turn of turns) {
    let answered = false;
    for (const slot of turn.calls) {
      if (slot.args === undefined || slot.outcome !== undefined) continue;
      const answer = answers.get(slot.callId);
      if (answer === undefined) continue;
      slot.outcome = { name: answer.name, outcome: answer.outcome };
      answers.delete(slot.callId);
      answered ||= ownsContext(slot, resumed.context);
    }
    if (answered && resumed.context !== undefined) addContext(turn, resumed.context.text);
  }
}

function ownsContext(slot: CallSlot, context: ContextMessage | undefined): boolean {
  return context?.parts.some((p) => p.call === slot.callId) === true;
}

/** A step settles once, so a turn gets two contexts only when a resume re-ran some of its calls. */
function addContext(turn: TurnSlot, text: string): void {
  turn.context = turn.context === undefined ? text : `${turn.context}\n\n${text}`;
}

function messagesOf(turn: TurnSlot): AgentMessage[] {
  const logged = turn.calls.filter((slot) => slot.args !== undefined);
  const { data } = turn;
  if (data.text === '' && logged.length === 0) return [];
  const calls: ModelToolCall[] = logged.map((slot) => ({ id: slot.id, name: slot.name, args: slot.args as string }));
  const assistant: AssistantMessage = {
    role: 'assistant',
    text: data.text,
    calls,
    stop: data.stop as StopReason,
    ...(data.usage === undefined ? {} : { usage: data.usage }),
  };
  if (logged.length === 0) return [assistant];
  const results: ToolResultEntry[] = logged.map((slot) => {
    if (slot.outcome === undefined) {
      throw new AgentError(
        AgentErrorCode.SESSION_UNANSWERED,
        `historyFromSession: call "${slot.callId}" (${slot.name}) of turn ${data.turn} has no logged result: ` +
          'resume the session first (resumeSession), and pass the events logged since or its ResumedSession as `resumed`',
      );
    }
    return resultEntry(slot.id, { id: slot.callId, ...slot.outcome });
  });
  const tool: ToolResultsMessage =
    turn.context === undefined ? { role: 'tool', results } : { role: 'tool', results, context: turn.context };
  return [assistant, tool];
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
