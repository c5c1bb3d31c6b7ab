import type { CallRun } from './call-run.js';
import type { Cancellation } from './cancellation.js';
import { emitChecked } from './emit.js';
import { messageOf } from './errors.js';
import type { EventData, EventType } from './events.js';
import { raiseGate } from './gate-run.js';
import type { GateData, GateType, GateVerdict } from './gates.js';
import type { JsonValue } from './json.js';
import type { CallIdentity, Outcome } from './outcome.js';
import type { Runtime } from './runtime.js';
import type { SubCall, ToolContext } from './tool.js';

/** The `ctx` a body receives; a class so that making one per call is cheap. */
export class ToolContextImpl implements ToolContext {
  readonly call: CallIdentity;
  readonly session: string;
  readonly #rt: Runtime;
  readonly #cancellation: Cancellation;

  /** `cancellation` is the call's own or a tap's; its signal is made on first read. */
  constructor(rt: Runtime, run: CallRun, cancellation: Cancellation) {
    this.#rt = rt;
    this.#cancellation = cancellation;
    this.call = run.identity;
    this.session = rt.session;
  }

  get tools(): { execute(call: SubCall): Promise<Outcome> } {
    const { id, token, agent } = this.call;
    // A sub-call (run_code's) made inside a subagent stays that subagent's.
    const parent = agent === undefined ? { id, token, signal: this.signal } : { id, token, agent, signal: this.signal };
    return { execute: (sub: SubCall) => this.#rt.execute(sub, parent) };
  }

  get signal(): AbortSignal {
    return this.#cancellation.signal;
  }

  get deadline(): number | undefined {
    return this.#cancellation.deadline;
  }

  emit<T extends EventType>(type: T, data: EventData<T>): Promise<void> {
    return emitChecked(this.#rt.log, type, data, this.call);
  }

  progress(update: JsonValue): void {
    const ui = this.#rt.ui;
    if (ui?.progress === undefined) return;
    try {
      ui.progress(this.call, update);
    } catch (error) {
      this.#rt.diagnostics.record('UI_FAILED', 'ui:progress', messageOf(error), this.call.id);
    }
  }

  gate<T extends GateType>(type: T, data: GateData<T>): Promise<GateVerdict> {
    return raiseGate(this.#rt, type, data, this.call);
  }
}
