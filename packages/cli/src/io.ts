import type { Style } from './render/style.js';
import type { TextOut } from './render/terminal-ui.js';

/** What a command reads and writes besides files: injected so the CLI can run inside tests and tools. */
export interface CliIo {
  readonly stdout: TextOut;
  readonly stderr: TextOut;
  /** Styles for stdout: colour only on a TTY. */
  readonly style: Style;
  /** Whether stdout is a terminal (spinners, colour). */
  readonly isTTY: boolean;
  readonly env: NodeJS.ProcessEnv;
  /** Where relative paths on the command line resolve. */
  readonly cwd: string;
  /** Where `dsh run` reads approvals typed at the terminal; absent or not a TTY: asks are refused. */
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
}
