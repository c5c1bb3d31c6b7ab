/**
 * The exit codes of `dsh`, stable across releases: scripts and CI jobs
 * branch on them. The README's table says the same.
 */
export const ExitCode = {
  /** The command did what it was asked; every expectation held. */
  OK: 0,
  /** `--expect` expectations failed (replay, hooks check), the demo saw something it should not, or `dsh approve` came after another answer. */
  EXPECTATION_FAILED: 1,
  /** Bad command line: unknown command or flag, missing argument. */
  USAGE: 2,
  /** `dsh.config.json` (or `--config`) is unreadable or invalid, a plugin refused its options, an optional SDK a command needs is missing, `dsh config check` found something not in force, or `--strict` met a configuration problem. */
  CONFIG: 3,
  /** An input file or value is unreadable or invalid: a transcript, an expectations file, `--input`. */
  INPUT: 4,
  /** `dsh run`: the agent stopped before it finished: turn limit, Ctrl-C, a refusal, a failed model request. */
  AGENT_STOPPED: 5,
  /** `dsh approve`: the durable engine cannot be reached, or refused the answer. */
  ENGINE: 6,
  /** Anything else went wrong (a bug): the message says what. */
  INTERNAL: 70,
} as const;

/** One of the exit codes of `dsh`. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
