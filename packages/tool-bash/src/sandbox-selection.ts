import type { CallIdentity, GuardInput, GuardVerdict, PreExecuteState, PreExecuteTap, PreExecuteUpdate } from '@deepseek-ai/dsh-core';
import type { SandboxProbe, SandboxProvider } from './sandbox/provider.js';

/** What to do when the configured sandbox does not work here. */
export type SandboxFallback = 'deny' | 'ask' | 'none';

/** The sandbox chosen for one call. */
export interface SandboxSelection {
  readonly provider: SandboxProvider;
  /** Set when the call runs without the configured sandbox: why. */
  readonly fallbackReason?: string;
  /** True when running unsandboxed needs the user's approval (fallback `ask`). */
  readonly needsApproval: boolean;
}

/**
 * Chooses the sandbox of each `bash` call in `tools/pre-execute`, and
 * enforces that choice with a guard: the configured provider when its probe
 * passed; otherwise the fallback — deny, ask (and the guard refuses the call
 * unless the user approved it, whatever later taps decided), or run
 * unsandboxed. The body reads the selection; without one it refuses to run.
 */
export class SandboxSelector {
  readonly #toolName: string;
  readonly #configured: SandboxProvider;
  readonly #unsandboxed: SandboxProvider;
  readonly #fallback: SandboxFallback;
  /** The probe's result once it is known and final; until then calls wait for `#pending`. */
  #probe: SandboxProbe | undefined;
  #pending: Promise<SandboxProbe> | undefined;
  /** Probes again, for the next call after a probe that timed out. */
  readonly #reprobe: (() => Promise<SandboxProbe>) | undefined;
  /** Keyed by the call's identity object, which core keeps for the whole call: an entry goes with its call. */
  readonly #selections = new WeakMap<CallIdentity, SandboxSelection>();

  constructor(options: {
    readonly toolName: string;
    readonly configured: SandboxProvider;
    readonly unsandboxed: SandboxProvider;
    readonly fallback: SandboxFallback;
    /** The probe's result, or the probe still running: registration does not wait for a process to start. */
    readonly probe: SandboxProbe | Promise<SandboxProbe>;
    /** Starts a new probe: without it, a probe that timed out is final too. */
    readonly reprobe?: () => Promise<SandboxProbe>;
  }) {
    this.#toolName = options.toolName;
    this.#configured = options.configured;
    this.#unsandboxed = options.unsandboxed;
    this.#fallback = options.fallback;
    this.#reprobe = options.reprobe;
    if (options.probe instanceof Promise) this.#follow(options.probe);
    else this.#settle(options.probe);
  }

  /** The probe result the selector works from, once the probe has finished. */
  probe(): Promise<SandboxProbe> {
    return Promise.resolve(this.#current());
  }

  /** The `tools/pre-execute` tap: synchronous once the probe has finished for good, as it has after the first call. */
  readonly tap: PreExecuteTap = (state: PreExecuteState, info) => {
    if (info.tool.name !== this.#toolName) return undefined;
    const probe = this.#current();
    if (!(probe instanceof Promise)) return this.#select(state.call, probe);
    return probe.then((settled) => this.#select(state.call, settled));
  };

  /** The final result, the probe under way, or a new probe after one that timed out. */
  #current(): SandboxProbe | Promise<SandboxProbe> {
    if (this.#probe !== undefined) return this.#probe;
    if (this.#pending !== undefined) return this.#pending;
    return this.#follow((this.#reprobe as () => Promise<SandboxProbe>)());
  }

  #follow(running: Promise<SandboxProbe>): Promise<SandboxProbe> {
    const pending: Promise<SandboxProbe> = running.then((probe) => {
      if (this.#pending === pending) {
        this.#pending = undefined;
        this.#settle(probe);
      }
      return probe;
    });
    this.#pending = pending;
    return pending;
  }

  /** Keeps a result for the session, unless it timed out and the selector can probe again. */
  #settle(probe: SandboxProbe): void {
    const transient = !probe.ok && probe.cause === 'timeout' && this.#reprobe !== undefined;
    if (!transient) this.#probe = probe;
  }

  /** The guard that holds every call to its selection. */
  readonly check = (input: GuardInput): GuardVerdict => {
    if (input.tool.name !== this.#toolName) return 'abstain';
    const selection = this.#selections.get(input.call);
    if (selection === undefined) {
      return { deny: `no sandbox was selected for this ${this.#toolName} call (the tool-bash sandbox tap did not run), so it may not run` };
    }
    if (selection.needsApproval && input.allowedBy !== 'approval') {
      return {
        deny: `${selection.fallbackReason ?? 'the sandbox is unavailable'}; running without it needs the user's approval, and this call was not approved by the user`,
      };
    }
    return 'abstain';
  };

  /** The body's selection (a retried body sees the same one). */
  selectionOf(call: CallIdentity): SandboxSelection | undefined {
    return this.#selections.get(call);
  }

  #select(call: CallIdentity, probe: SandboxProbe): PreExecuteUpdate | undefined {
    if (probe.ok) {
      this.#selections.set(call, { provider: this.#configured, needsApproval: false });
      return undefined;
    }
    const why = `the ${this.#configured.name} sandbox is unavailable: ${probe.reason}`;
    // The sandbox works here; a path of the workspace breaks it. Running unsandboxed is no answer to that.
    if (probe.cause === 'paths') return { decision: 'deny', reason: `${why}. No fallback applies to this, whatever sandbox.fallback says` };
    switch (this.#fallback) {
      case 'deny':
        return { decision: 'deny', reason: `${why}; tool-bash is configured to refuse commands without it (sandbox.fallback: "deny")` };
      case 'ask':
        this.#selections.set(call, { provider: this.#unsandboxed, fallbackReason: why, needsApproval: true });
        return { decision: 'ask', reason: `${why}. Run this command without a sandbox?` };
      default:
        this.#selections.set(call, { provider: this.#unsandboxed, fallbackReason: why, needsApproval: false });
        return undefined;
    }
  }
}
