import { type AnyToolDefinition, type Args, type ToolNameMatcher, toolNameMatcher } from '@deepseek-ai/dsh-core';
import type { ResolvedTimeoutPolicyOptions } from './options.js';

/** Where a call's deadline came from, in the order the policy looks. */
export type DeadlineSource = 'argument' | 'policy' | 'tool' | 'default';

/** A call's deadline and why it is that. */
export interface Deadline {
  readonly ms: number;
  readonly source: DeadlineSource;
}

/**
 * Works out deadlines. Precedence: the model's timeout argument (clamped to
 * `maxMs`), then the integrator's per-tool entry (an exemption, `'none'`,
 * wins over everything, the argument included), then the tool's declared
 * `timeoutMs` (clamped to `maxMs`), then `defaultMs`.
 */
export class DeadlineResolver {
  readonly #options: ResolvedTimeoutPolicyOptions;
  readonly #tools: ToolNameMatcher<number | 'none'>;
  /** Each tool's deadline when the call asks for none: options and definitions never change, so once per tool. */
  readonly #byTool = new WeakMap<AnyToolDefinition, Deadline | 'none'>();

  constructor(options: ResolvedTimeoutPolicyOptions) {
    this.#options = options;
    this.#tools = toolNameMatcher(Object.entries(options.tools));
  }

  /** The call's deadline, or `undefined` when the integrator exempted the tool. */
  resolve(tool: AnyToolDefinition, args: Args): Deadline | undefined {
    let fixed = this.#byTool.get(tool);
    if (fixed === undefined) {
      fixed = this.#toolDeadline(tool);
      this.#byTool.set(tool, fixed);
    }
    if (fixed === 'none') return undefined;
    const asked = this.#argumentMs(args);
    return asked === undefined ? fixed : { ms: Math.min(asked, this.#options.maxMs), source: 'argument' };
  }

  #toolDeadline(tool: AnyToolDefinition): Deadline | 'none' {
    const { maxMs, defaultMs } = this.#options;
    const configured = this.#tools.lookup(tool.name);
    if (configured === 'none') return 'none';
    if (configured !== undefined) return { ms: configured, source: 'policy' };
    if (tool.timeoutMs !== undefined) return { ms: Math.max(1, Math.min(Math.ceil(tool.timeoutMs), maxMs)), source: 'tool' };
    return { ms: defaultMs, source: 'default' };
  }

  /** The model's requested deadline in ms; a missing, non-positive or non-numeric value is ignored. */
  #argumentMs(args: Args): number | undefined {
    const name = this.#options.timeoutArg;
    if (name === false) return undefined;
    const raw = args[name];
    const value = typeof raw === 'number' ? raw : typeof raw === 'bigint' ? Number(raw) : Number.NaN;
    if (!(value > 0) || !Number.isFinite(value)) return undefined;
    return Math.ceil(this.#options.timeoutArgUnit === 's' ? value * 1000 : value);
  }
}
