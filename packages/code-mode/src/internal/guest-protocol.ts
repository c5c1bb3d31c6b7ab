import type { ProgramEnd } from './run-report.js';

/** What the guest's bootstrap is told for one run. */
export interface GuestConfig {
  readonly names: readonly string[];
  readonly maxArgsChars: number;
  readonly maxLogChars: number;
  readonly maxResultChars: number;
  readonly maxErrorChars: number;
  readonly maxCalls: number;
}

/** The identity of a config: two runs with equal keys can share a bootstrap installed ahead. */
export function configKey(config: GuestConfig): string {
  const { names, maxArgsChars, maxLogChars, maxResultChars, maxErrorChars, maxCalls } = config;
  return JSON.stringify([names, maxArgsChars, maxLogChars, maxResultChars, maxErrorChars, maxCalls]);
}

/** One answer for the guest: the call's index, whether it succeeded, and the JSON text. */
export type AnswerItem = readonly [index: number, ok: boolean, text: string];

/** Messages from the host to a guest worker. */
export type HostMessage =
  /**
   * Build the next QuickJS instance ahead, with this memory cap, and with the bootstrap installed
   * for `config` when given (the config the next run is expected to have); the worker says `ready`.
   */
  | { readonly t: 'prepare'; readonly memoryLimitBytes: number; readonly config?: GuestConfig }
  /**
   * Run a program in the prepared instance; the worker answers with a `report`. With `handoff` (a
   * fresh buffer for this run), later answers and reports cross through it (see `handoff-channel.ts`).
   */
  | {
      readonly t: 'start';
      readonly code: string;
      readonly config: GuestConfig;
      readonly handoff?: SharedArrayBuffer;
      /** The host traces this run (see `run-trace.ts`): the start's report carries the worker's stage times. */
      readonly trace?: true;
    }
  /** Tool answers to deliver (too large for the hand-off, or a run without one); the worker answers with a `report`. */
  | { readonly t: 'answers'; readonly items: readonly AnswerItem[] }
  /** The run is over: drop its instance, build the next one (as `prepare` does), then say `ready`. */
  | { readonly t: 'end'; readonly memoryLimitBytes: number; readonly config?: GuestConfig };

/**
 * How the guest ended, as the worker saw it. `interrupted` means the host's
 * stop flag cut it: the host knows why it raised the flag.
 */
export type GuestEnd = Exclude<ProgramEnd, { kind: 'timeout' | 'stalled' | 'aborted' | 'data-limit' }> | { readonly kind: 'interrupted' };

/** What the worker reports after each message from the host that entered the guest. */
export interface GuestReport {
  readonly t: 'report';
  /** Calls the program made since the last report, as the bootstrap's outbox text. */
  readonly outbox: string;
  /** How the guest ended, when it did in this entry. */
  readonly end?: GuestEnd;
  /** With an end the program reported itself: how many calls it had made by then. Later calls came after its end. */
  readonly endIndex?: number;
  /**
   * Every call the program made, from the guest's ledger, when the outbox
   * could not be collected (the memory cap): the calls past those the host
   * has taken were made but never crossed. `nameAt[i]` is call i's index in
   * the callable names plus one (0: unknown).
   */
  readonly lost?: { readonly made: number; readonly nameAt: Uint16Array | Uint32Array };
  /** Console lines dropped so far, once the log was full. */
  readonly dropped: number;
  /** In the report of a start: whether the instance came with its bootstrap installed ahead (a warm start). */
  readonly warm?: boolean;
  /** In the report of a traced start that went by the port: the worker's stage times (`run-trace.ts`). */
  readonly stages?: readonly (readonly [stage: 'received' | 'compiled' | 'ran' | 'reported', at: number])[];
}

/** Messages from a guest worker to the host. */
export type WorkerMessage =
  /** The worker's OS thread id (Linux), read from `/proc/thread-self`, for the host to read its CPU time. */
  | { readonly t: 'hello'; readonly tid: number | undefined }
  /**
   * An instance with this memory cap is ready for the next run, or could not be built; `key` is the
   * {@link configKey} it was prepared for ('' for none).
   */
  | { readonly t: 'ready'; readonly memoryLimitBytes: number; readonly key: string; readonly failure?: string }
  /** A console line the log keeps, sent as it is written so that it survives a forced stop. */
  | { readonly t: 'log'; readonly line: string }
  | GuestReport;
