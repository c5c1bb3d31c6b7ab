import type { McpErrorCode } from './errors.js';
import { StdioTransport } from './stdio-transport.js';

/**
 * How a server's process ended, as far as it is known: `exitCode` when it
 * exited, `signal` when a signal ended it, both `null` when there was no
 * process exit to report (an HTTP server, or a process still running that
 * dsh then stopped).
 */
export interface McpProcessEnd {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/**
 * The last crash of a server: its process exited, or its connection closed,
 * after it had been ready (not by `close()`). Kept apart from start failures,
 * so the restarts that follow a crash cannot hide it.
 */
export interface McpServerCrash extends McpProcessEnd {
  readonly code: typeof McpErrorCode.MCP_SERVER_EXITED;
  /** What the calls in flight were told, with the stderr tail. */
  readonly message: string;
  /** When, as an ISO date. */
  readonly at: string;
  /** The process that crashed (stdio). */
  readonly pid?: number;
  /** The tail of the crashed process's stderr (up to `stderrBytes`; empty for HTTP). */
  readonly stderrTail: string;
  /** Calls that were waiting for an answer; each ended with `MCP_SERVER_EXITED`. */
  readonly callsInFlight: number;
}

/** The last failed start (or restart) of a server. */
export interface McpStartFailure extends McpProcessEnd {
  readonly code: typeof McpErrorCode.MCP_START_FAILED;
  readonly message: string;
  /** When, as an ISO date. */
  readonly at: string;
  /** The process of that attempt (stdio), if one was started. */
  readonly pid?: number;
  /** The tail of that process's stderr (empty for HTTP). */
  readonly stderrTail: string;
  /** Which attempt in a row it was (1 for the first after a start, a crash or `restart()`). */
  readonly attempt: number;
}

/** What a record says of the process behind a transport: pid, how it ended (so far) and its stderr tail. */
export interface ProcessFacts extends McpProcessEnd {
  readonly pid?: number;
  readonly stderrTail: string;
  /** ` (exit code 3)` or ` (killed by SIGKILL)` once the process has ended by itself, else empty: for messages. */
  readonly how: string;
}

/** The facts of a transport's process, read now (before dsh stops it, so an end is the process's own). */
export function processFacts(transport: unknown): ProcessFacts {
  if (!(transport instanceof StdioTransport)) return { exitCode: null, signal: null, stderrTail: '', how: '' };
  const exit = transport.exit;
  const pid = transport.pid;
  const how = exit === undefined ? '' : exit.signal !== null ? ` (killed by ${exit.signal})` : ` (exit code ${exit.code})`;
  return {
    ...(pid === undefined ? {} : { pid }),
    exitCode: exit?.code ?? null,
    signal: exit?.signal ?? null,
    stderrTail: transport.stderr.text(),
    how,
  };
}
