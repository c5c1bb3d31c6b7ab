import { DshError, ErrorCode } from './errors.js';
import type { CallIdentity } from './outcome.js';

/**
 * Gate type → what is announced. tool-fs raises the `fs/*` gates before it
 * touches disk; `expectedSha256` is the content the tool expects to replace
 * (`null`: it expects no file there). Plugins add types by augmentation.
 */
export interface GateDataMap {
  'fs/write-intent': { readonly path: string; readonly expectedSha256: string | null };
  'fs/edit-intent': { readonly path: string; readonly expectedSha256: string };
}

/** A known gate type. */
export type GateType = keyof GateDataMap;
/** What a gate of type `T` announces. */
export type GateData<T extends GateType> = GateDataMap[T];

/** A handler's veto, with the reason the model will read and, optionally, a stable code for it. */
export interface GateVeto {
  readonly veto: string;
  readonly code?: string;
}

/** What raising a gate decided; a veto names its handler and carries the handler's code, if any. */
export type GateVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string; readonly by: string; readonly code?: string };

/** What a gate handler learns about the call that raised the gate. */
export interface GateContext {
  readonly call: CallIdentity;
  readonly session: string;
}

/** Inspects an announced action and may veto it. Throwing or passing its deadline vetoes. */
export type GateHandler<T extends GateType> = (
  data: GateData<T>,
  ctx: GateContext,
) => GateVeto | undefined | void | Promise<GateVeto | undefined | void>;

/** A registered handler. */
export interface GateEntry {
  readonly name: string;
  readonly timeoutMs: number | undefined;
  readonly handler: GateHandler<GateType>;
}

/** Named handlers per gate type, in registration order. */
export class GateRegistry {
  readonly #handlers = new Map<string, readonly GateEntry[]>();

  /** Adds a named handler for `type`; returns the function that removes it. */
  on<T extends GateType>(
    type: T,
    nameOrOptions: string | { readonly name: string; readonly timeoutMs?: number },
    handler: GateHandler<T>,
  ): () => void {
    const options = typeof nameOrOptions === 'string' ? { name: nameOrOptions } : nameOrOptions;
    if (typeof options.name !== 'string' || options.name.length === 0 || typeof handler !== 'function') {
      throw new DshError(ErrorCode.INVALID_TAP, `a handler on gate "${type}" needs a name and a function`);
    }
    const current = this.#handlers.get(type) ?? [];
    if (current.some((h) => h.name === options.name)) {
      throw new DshError(ErrorCode.DUPLICATE_TAP, `a handler named "${options.name}" is already on gate "${type}"`);
    }
    const entry: GateEntry = Object.freeze({
      name: options.name,
      timeoutMs: 'timeoutMs' in options ? options.timeoutMs : undefined,
      handler: handler as GateHandler<GateType>,
    });
    this.#handlers.set(type, [...current, entry]);
    return () => {
      this.#handlers.set(
        type,
        (this.#handlers.get(type) ?? []).filter((h) => h !== entry),
      );
    };
  }

  /** The handlers of `type`, in order. */
  handlersOf(type: string): readonly GateEntry[] {
    return this.#handlers.get(type) ?? [];
  }
}
