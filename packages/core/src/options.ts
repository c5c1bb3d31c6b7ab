import { z } from 'zod';
import type { ApprovalProvider } from './approval.js';
import { DshError, ErrorCode } from './errors.js';
import type { EventSink } from './events.js';
import type { Decision } from './hooks.js';
import type { UiAdapter } from './ui.js';

const ms = z.number().int().positive();
const directory = z
  .string()
  .min(1)
  .refine((s) => !s.includes('\0'), 'must not contain NUL bytes');

/** The zod schema of `createHost` options (functions and objects checked by shape). */
export const hostOptionsSchema = z.strictObject({
  session: z.string().min(1).optional(),
  cwd: directory.optional(),
  projectDir: directory.optional(),
  homeDir: directory.optional(),
  sink: z.custom<EventSink>((v) => typeof (v as EventSink | null)?.append === 'function', 'must have an append method').optional(),
  retainEvents: z.number().int().positive().optional(),
  retainEventBytes: z.number().int().positive().optional(),
  approval: z.custom<ApprovalProvider>((v) => typeof v === 'function', 'must be a function').optional(),
  ui: z.custom<UiAdapter>((v) => typeof v === 'object' && v !== null, 'must be an object').optional(),
  defaultDecision: z.enum(['allow', 'deny', 'ask']).optional(),
  approvalTimeoutMs: ms.optional(),
  tapTimeoutMs: ms.optional(),
  uiTimeoutMs: ms.optional(),
  sinkTimeoutMs: ms.optional(),
  abortGraceMs: z.number().int().nonnegative().optional(),
  dispatchTimeoutMs: ms.optional(),
  maxParallel: z.number().int().positive().optional(),
  pluginTimeoutMs: ms.optional(),
});

/** Options of `createHost`. Every one is optional. */
export interface HostOptions {
  /** The session id written on every event; a random UUID by default. */
  readonly session?: string;
  /**
   * The session's working directory: file tools resolve relative paths
   * against it, bash starts there, permission rules anchor `./p` there.
   * `process.cwd()` by default; a relative one resolves against that.
   */
  readonly cwd?: string;
  /** The project root (`.claude/` settings, `/p` rules, the grants file): `cwd` by default. */
  readonly projectDir?: string;
  /** What `~` stands for in paths and rules: the user's home by default. */
  readonly homeDir?: string;
  /** Where events go besides memory, such as `jsonlSink(path)`. */
  readonly sink?: EventSink;
  /**
   * How many events `host.events.list()` keeps in memory: 10,000 by default.
   * The oldest go first; `host.events.dropped()` says how many went. The full log belongs to the sink.
   */
  readonly retainEvents?: number;
  /** How many bytes of events (estimated as JSON) `host.events.list()` keeps: 16 MiB by default. */
  readonly retainEventBytes?: number;
  /** Asked once for each call left at `ask`; without one, such calls are denied. */
  readonly approval?: ApprovalProvider;
  /** Receives pending and completed cards and live progress. */
  readonly ui?: UiAdapter;
  /** The decision the pre-execute waterfall starts from: `ask` by default. */
  readonly defaultDecision?: Decision;
  /** How long an approval may take before it counts as a deny: 5 minutes by default. */
  readonly approvalTimeoutMs?: number;
  /** Default deadline of a tap, guard, gate handler or observer: 30 s. */
  readonly tapTimeoutMs?: number;
  /** Deadline of a UI adapter call: 5 s. */
  readonly uiTimeoutMs?: number;
  /** Deadline for the sink to hold one event: 10 s. */
  readonly sinkTimeoutMs?: number;
  /** How long an aborted body has to settle before the call settles without it: 2 s. */
  readonly abortGraceMs?: number;
  /** A last-resort deadline on each dispatch (timeout policies set finer ones): none by default. */
  readonly dispatchTimeoutMs?: number;
  /** How many parallel bodies may run at once: 10. */
  readonly maxParallel?: number;
  /** How long a plugin's `register` may take: 10 s. */
  readonly pluginTimeoutMs?: number;
}

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parseHostOptions(options: unknown): HostOptions {
  const parsed = hostOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : 'options';
    throw new DshError(ErrorCode.INVALID_OPTIONS, `createHost: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data as HostOptions;
}
