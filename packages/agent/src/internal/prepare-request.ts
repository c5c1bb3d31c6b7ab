import type { Host, ToolSchema } from '@deepseek-ai/dsh-core';
import { messageOf } from '@deepseek-ai/dsh-core';
import { estimateTokens, type RequestChanges } from '../before-request.js';
import { AgentErrorCode } from '../errors.js';
import type { AgentMessage } from '../messages.js';
import type { ModelRequest } from '../model.js';
import { checkHistory, messageSchema, type RunAgentOptions } from '../options.js';
import type { HookFailure } from '../run-agent.js';
import { callableNames, offeredTools, type ToolChoice, type ToolSelection, toolChoiceSchema, toolSelectionSchema } from '../tool-choice.js';

/** The request for one turn, the history it holds, and the names its calls may use when narrowed. */
export type Prepared =
  | {
      readonly kind: 'ready';
      readonly request: ModelRequest;
      readonly history: AgentMessage[];
      /** Set when the turn's tools are fewer than the host's: the calls' allowed names. */
      readonly callable?: ReadonlySet<string>;
    }
  | { readonly kind: 'failed'; readonly failure: HookFailure };

/** The offered schemas and, when narrowed, what calls may use; `fail` builds the error for a bad selection. */
export function selectTools(
  host: Host,
  selection: ToolSelection | undefined,
  choice: ToolChoice | undefined,
  fail: (message: string) => Error,
): { offered: ToolSchema[]; callable?: ReadonlySet<string> } {
  const all = host.tools.schemas();
  let offered: ToolSchema[];
  try {
    offered = offeredTools(all, selection, choice);
  } catch (error) {
    throw fail(messageOf(error));
  }
  const callable = callableNames(offered, choice);
  return callable.size < all.length ? { offered, callable } : { offered };
}

/** Builds the turn's request, running the `beforeRequest` hook on it. */
export async function prepareRequest(options: RunAgentOptions, history: AgentMessage[], turn: number): Promise<Prepared> {
  const { host } = options;
  const base = selectTools(host, options.tools, options.toolChoice, (m) => new Error(m));
  const system = options.system === undefined ? {} : { system: options.system };
  const choice = options.toolChoice === undefined ? {} : { toolChoice: options.toolChoice };
  if (options.beforeRequest === undefined) {
    return { kind: 'ready', request: { ...system, ...choice, messages: history.slice(), tools: base.offered }, history, ...narrowed(base) };
  }
  let changes: RequestChanges | undefined;
  try {
    const tokens = estimateTokens([options.system, history, base.offered]);
    changes = await options.beforeRequest({ turn, messages: history.slice(), tokens, tools: base.offered, ...system, ...choice });
    if (changes === undefined || changes === null) {
      return {
        kind: 'ready',
        request: { ...system, ...choice, messages: history.slice(), tools: base.offered },
        history,
        ...narrowed(base),
      };
    }
    const next = changes.messages === undefined ? history : checkedHistory(changes.messages);
    checkField('tools', toolSelectionSchema, changes.tools);
    checkField('toolChoice', toolChoiceSchema, changes.toolChoice);
    const toolChoice = changes.toolChoice ?? options.toolChoice;
    const picked =
      changes.tools === undefined && changes.toolChoice === undefined
        ? base
        : selectTools(host, changes.tools ?? options.tools, toolChoice, (m) => new Error(m));
    const request: ModelRequest = {
      ...system,
      ...(toolChoice === undefined ? {} : { toolChoice }),
      messages: next.slice(),
      tools: picked.offered,
    };
    return { kind: 'ready', request, history: next, ...narrowed(picked) };
  } catch (error) {
    return { kind: 'failed', failure: { code: AgentErrorCode.HOOK_FAILED, message: `beforeRequest: ${messageOf(error)}` } };
  }
}

function narrowed(s: { callable?: ReadonlySet<string> }): { callable?: ReadonlySet<string> } {
  return s.callable === undefined ? {} : { callable: s.callable };
}

function checkField(name: string, schema: { safeParse(v: unknown): { success: boolean } }, value: unknown): void {
  if (value !== undefined && !schema.safeParse(value).success) throw new Error(`${name}: not a valid ${name} value`);
}

/** A replacement history, checked like the one passed in: shape, and every call answered. */
function checkedHistory(messages: readonly AgentMessage[]): AgentMessage[] {
  if (!Array.isArray(messages) || messages.length === 0) throw new Error('messages: must hold at least one message');
  messages.forEach((m, i) => {
    const parsed = messageSchema.safeParse(m);
    if (!parsed.success) throw new Error(`messages.${i}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  });
  checkHistory(messages);
  return [...messages];
}
