import { z } from '@deepseek-ai/dsh-core';

/** The zod schema of a finished command's result: the `bash` tool's output. */
export const bashResultSchema = z.object({
  /** The shell's exit code; null when it was ended by a signal. */
  exitCode: z.number().int().nullable(),
  /** The signal that ended the shell (or the sandbox launcher), if one did. */
  signal: z.string().nullable(),
  /** stdout and stderr interleaved in arrival order (chunk by chunk), head and tail kept within the cap. */
  output: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  /** True when any view was cut in the middle. */
  truncated: z.boolean(),
  /** Every byte the command wrote, both streams, when `output` was cut. */
  fullOutputPath: z.string().optional(),
  /** Why the full output could not be saved, when it could not. */
  fullOutputError: z.string().optional(),
  /** Bytes written to each stream. */
  bytes: z.object({ stdout: z.number().int().nonnegative(), stderr: z.number().int().nonnegative() }),
  /** The working directory the next command starts in. */
  cwd: z.string(),
  /** The sandbox the command ran in (`bwrap`, `none`, …). */
  sandbox: z.string(),
  durationMs: z.number().nonnegative(),
  /** The limits the host could enforce on this call (a cgroup's); absent when none was set that way. */
  limits: z
    .object({
      processes: z.number().int().optional(),
      memoryBytes: z.number().int().optional(),
      /** The call's processes shared the CPU as one ordinary process (a CPU cgroup of their own). */
      cpuAsOneProcess: z.literal(true).optional(),
    })
    .optional(),
  /** Things the model should know: a clamped timeout, a reset working directory, an unsandboxed run. */
  notices: z.array(z.string()).optional(),
});

/** A finished command's result: the `bash` tool's output. */
export type BashResult = z.infer<typeof bashResultSchema>;

/** Why the tool stopped a command early. */
export type StoppedBy = 'timeout' | 'abort' | 'output-limit';

/**
 * The `data` of a `TOOL_TIMEOUT`, `ABORTED` or `OUTPUT_LIMIT_EXCEEDED` error:
 * everything the command produced until it was stopped.
 */
export type StoppedResult = BashResult & {
  readonly stoppedBy: StoppedBy;
  /** True when SIGTERM was not enough and SIGKILL was sent. */
  readonly escalated: boolean;
  readonly timeoutMs?: number;
};

/** A live-output update, as the UI adapter's `progress` receives it. */
export type OutputProgress = {
  readonly type: 'output';
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
  /** Characters of this stream not shown since the previous update (a flood is sampled, newest text kept). */
  readonly skipped?: number;
};
