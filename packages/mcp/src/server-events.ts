import { type EventDoc, type Host, z } from '@deepseek-ai/dsh-core';

/** Characters of stderr an `mcp/server-exited` event carries at most (the end of it); `servers()` keeps up to `stderrBytes`. */
export const eventStderrChars = 8_192;

/** `mcp/server-exited`: a ready server's process exited or its connection closed, not by `close()`. */
export interface ServerExitedEventData {
  /** The server's name (as in `mcp__<server>__…`). */
  readonly server: string;
  readonly transport: 'stdio' | 'http';
  /** The process that exited (stdio). */
  readonly pid?: number;
  /** Its exit code; `null` when a signal ended it, or for HTTP. */
  readonly exitCode: number | null;
  /** The signal that ended it; `null` when it exited, or for HTTP. */
  readonly signal: string | null;
  /** The end of its stderr, at most {@link eventStderrChars} characters (empty for HTTP). */
  readonly stderrTail: string;
  /** Calls that were waiting for an answer; each ended with `MCP_SERVER_EXITED`. */
  readonly callsInFlight: number;
  /** When the next start is tried (ms from now); absent if none is scheduled. */
  readonly restartInMs?: number;
}

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'mcp/server-exited': ServerExitedEventData;
  }
}

/** The zod schema of `mcp/server-exited`. */
export const serverExitedEvent = z.object({
  server: z.string(),
  transport: z.enum(['stdio', 'http']),
  pid: z.number().int().positive().optional(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stderrTail: z.string().max(eventStderrChars),
  callsInFlight: z.number().int().nonnegative(),
  restartInMs: z.number().int().nonnegative().optional(),
});

const serverExitedDoc: EventDoc = {
  meaning: "A ready MCP server's process exited or its connection closed: exit code, signal, stderr tail, and when it is started again.",
  example: {
    server: 'github',
    transport: 'stdio',
    pid: 4242,
    exitCode: 1,
    signal: null,
    stderrTail: 'Error: GITHUB_TOKEN is not set\n',
    callsInFlight: 1,
    restartInMs: 500,
  },
};

/** Defines the plugin's event types on a host (one `mcp` plugin per host, so they are new there). */
export function defineServerEvents(host: Host): void {
  host.events.define('mcp/server-exited', serverExitedEvent, serverExitedDoc);
}
