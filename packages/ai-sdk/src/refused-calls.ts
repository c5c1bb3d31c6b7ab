import type { Args, Host, Outcome } from '@deepseek-ai/dsh-core';
import { AiSdkError, AiSdkErrorCode } from './errors.js';
import { modelOutputOf } from './model-output.js';
import type { SdkCalls } from './sdk-calls.js';

/** What the SDK passes to `experimental_repairToolCall`, as far as the adapter reads it. */
export interface RepairQuestion {
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: string };
  /** The step's tools (after `activeTools`): a name missing here is the SDK's `NoSuchToolError`. */
  readonly tools?: Readonly<Record<string, unknown>> | undefined;
  readonly error: unknown;
}

/**
 * Calls the SDK refuses before any tool sees them: unparsable JSON, a tool
 * it does not have, input its own schema check rejects. The SDK asks
 * `experimental_repairToolCall` about each; this answers by running the call
 * through the host, where it ends with a coded outcome (`INVALID_ARGS`,
 * `UNKNOWN_TOOL`) and its one `tool/call` and `tool/result`, and then throws
 * that outcome's text, which the SDK gives the model as the call's error.
 */
export class RefusedCalls {
  readonly #host: Host;
  readonly #calls: SdkCalls;
  readonly #offered: (name: string) => boolean;
  /** Offered SDK tools whose schema dsh cannot check itself (not zod 4): the SDK's verdict on their input stands. */
  readonly #checkedBySdk = new Set<string>();
  /** Input the SDK refused for one of those tools, with why: that tool's dsh schema refuses the very object. */
  readonly #refusedInput = new WeakMap<object, string>();
  /** Calls to a host tool the step does not offer, by id, with the name: the first pre-execute tap denies them. */
  readonly #notOffered = new Map<string, string>();
  #untap: (() => void) | undefined;

  constructor(host: Host, calls: SdkCalls, offered: (name: string) => boolean) {
    this.#host = host;
    this.#calls = calls;
    this.#offered = offered;
  }

  /** Marks an SDK tool whose input only the SDK can check. */
  checkedBySdk(name: string): void {
    this.#checkedBySdk.add(name);
  }

  /** Why the SDK refused this input object, if it did: the dsh schema of a tool `checkedBySdk` asks. */
  refusalOf(input: unknown): string | undefined {
    return typeof input === 'object' && input !== null ? this.#refusedInput.get(input) : undefined;
  }

  /** For `experimental_repairToolCall`: logs the refused call through the pipeline, then throws its outcome's text. */
  async repair({ toolCall, tools, error }: RepairQuestion): Promise<null> {
    const { toolCallId: id, toolName: name, input } = toolCall;
    const sdkHasIt = tools !== undefined && Object.hasOwn(tools, name);
    // A tool passed to the SDK beside dsh's: the pipeline never sees it, so the SDK's own answer stands.
    if (sdkHasIt && !this.#offered(name)) return null;
    // The SDK reads empty input as `{}`; so does this, so that the schema names what is missing.
    let args: Args | string = input.trim() === '' ? {} : input;
    if (!sdkHasIt && this.#host.tools.get(name) !== undefined) this.#denyNotOffered(id, name);
    else if (this.#checkedBySdk.has(name)) args = this.#refuse(args, error);
    let outcome: Outcome;
    try {
      outcome = await this.#calls.runRefused({ id, name, args });
    } finally {
      this.#notOffered.delete(id);
    }
    throw new AiSdkError(AiSdkErrorCode.CALL_REFUSED, refusalText(outcome));
  }

  /** Removes the tap `repair` may have added. */
  dispose(): void {
    this.#untap?.();
    this.#untap = undefined;
  }

  /** The parsed input, remembered as refused, so the dsh schema of the tool refuses it with the SDK's reason. */
  #refuse(args: Args | string, error: unknown): Args | string {
    let value: unknown = args;
    if (typeof args === 'string') {
      try {
        value = JSON.parse(args);
      } catch {
        return args; // Not JSON: core refuses it without any schema.
      }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return args;
    const why = error instanceof Error ? error.message : String(error);
    this.#refusedInput.set(value, `the AI SDK's check of the tool's input schema failed: ${why}`);
    return value as Args;
  }

  /**
   * A host tool the SDK was not given for this step (left out by `include`
   * or `activeTools`) must not run: the first pre-execute tap denies the
   * call, before any hook or rule sees it. The tap is added on first need.
   */
  #denyNotOffered(id: string, name: string): void {
    this.#notOffered.set(id, name);
    this.#untap ??= this.#host.hooks.preExecute.tap({ name: 'ai-sdk/not-offered', stage: -1_000_000 }, (state) => {
      if (this.#notOffered.get(state.call.id) !== state.call.name) return undefined;
      return { decision: 'deny', reason: `UNKNOWN_TOOL: the tool "${state.call.name}" is not offered to the model in this step` };
    });
  }
}

/** What the model reads for a refused call's outcome, as text (the SDK sends it as the call's error). */
function refusalText(outcome: Outcome): string {
  const output = modelOutputOf(outcome);
  switch (output.type) {
    case 'error-text':
    case 'text':
      return output.value;
    case 'execution-denied':
      return output.reason ?? 'denied';
    default:
      return JSON.stringify(output.value);
  }
}
