import { DshError, ErrorCode } from './errors.js';

/** How a tap is placed among the others on its extension point. */
export interface TapOptions {
  /** Unique on its extension point; errors and diagnostics carry it. */
  readonly name: string;
  /** Lower runs earlier (outer, for `tools/execute`); default 0. Equal stages keep registration order. */
  readonly stage?: number;
  /** Names of taps this one must run before, whatever their stage. */
  readonly before?: string | readonly string[];
  /** How long this tap may take before the host stops waiting; the host's `tapTimeoutMs` by default. */
  readonly timeoutMs?: number;
}

/** A registered tap. */
export interface Tap<F> {
  readonly name: string;
  readonly stage: number;
  readonly timeoutMs: number | undefined;
  readonly fn: F;
}

/**
 * An extension point: an ordered list of named taps. Order is `stage`, then
 * registration order, with `before` moving a tap ahead of the named ones.
 * The list is copied on change, so a run in progress keeps the order it began with.
 */
/** One extension point as plugins see it: add a tap, read the order. */
export interface HookPoint<F extends (...args: never[]) => unknown> {
  /** The extension point's public name, for errors. */
  readonly hookName: string;
  /** Adds a tap; returns the function that removes it. */
  tap(nameOrOptions: string | TapOptions, fn: F): () => void;
  /** The taps in the order they run. */
  readonly taps: readonly Tap<F>[];
  /** The tap names in the order they run. */
  names(): string[];
}

export class TapList<F extends (...args: never[]) => unknown> implements HookPoint<F> {
  /** The extension point's public name, for errors. */
  readonly hookName: string;
  #taps: readonly Tap<F>[] = [];

  constructor(hookName: string) {
    this.hookName = hookName;
  }

  /**
   * Adds a tap; returns the function that removes it. A name already taken
   * on this extension point is refused with `DUPLICATE_TAP`.
   */
  tap(nameOrOptions: string | TapOptions, fn: F): () => void {
    const options: TapOptions = typeof nameOrOptions === 'string' ? { name: nameOrOptions } : nameOrOptions;
    if (typeof options.name !== 'string' || options.name.length === 0) {
      throw new DshError(ErrorCode.INVALID_TAP, `a tap on ${this.hookName} needs a non-empty name`);
    }
    if (typeof fn !== 'function') {
      throw new DshError(ErrorCode.INVALID_TAP, `tap "${options.name}" on ${this.hookName} is not a function`);
    }
    const stage = options.stage ?? 0;
    const timeoutMs = options.timeoutMs;
    if (!Number.isFinite(stage) || (timeoutMs !== undefined && !(timeoutMs > 0))) {
      throw new DshError(ErrorCode.INVALID_TAP, `tap "${options.name}" on ${this.hookName}: stage must be finite and timeoutMs positive`);
    }
    if (this.#taps.some((t) => t.name === options.name)) {
      throw new DshError(ErrorCode.DUPLICATE_TAP, `a tap named "${options.name}" is already on ${this.hookName}`);
    }
    const item: Tap<F> = Object.freeze({ name: options.name, stage, timeoutMs, fn });
    this.#taps = insert(this.#taps, item, options.before);
    return () => {
      this.#taps = this.#taps.filter((t) => t !== item);
    };
  }

  /** The taps in the order they run. */
  get taps(): readonly Tap<F>[] {
    return this.#taps;
  }

  /** The tap names in the order they run. */
  names(): string[] {
    return this.#taps.map((t) => t.name);
  }
}

/**
 * Places `item` after every tap of a lower or equal stage, but ahead of the
 * earliest tap named in `before` when that one comes sooner.
 */
function insert<F>(taps: readonly Tap<F>[], item: Tap<F>, before: string | readonly string[] | undefined): Tap<F>[] {
  let index = taps.length;
  while (index > 0 && (taps[index - 1] as Tap<F>).stage > item.stage) index -= 1;
  if (before !== undefined) {
    const names = new Set(typeof before === 'string' ? [before] : before);
    const first = taps.findIndex((t) => names.has(t.name));
    if (first !== -1 && first < index) index = first;
  }
  return [...taps.slice(0, index), item, ...taps.slice(index)];
}
