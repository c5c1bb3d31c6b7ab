import type { IfRule } from './if-rule.js';
import type { ToolMatcher } from './matcher.js';

/** The agents whose hook configuration this plugin reads. */
export type HookDialect = 'claude' | 'gemini' | 'copilot';

/** When a hook runs: before the body, or after it. */
export type HookPhase = 'pre' | 'post';

/** Which finished calls a post hook sees: those that succeeded, those that failed, or both (Gemini's AfterTool). */
export type PostOutcomeFilter = 'success' | 'failure' | 'both';

/** One command hook, normalised from whichever dialect's configuration it was read. */
export interface HookSpec {
  /** Stable id: the source and the entry's place in it, e.g. `.claude/settings.json#hooks.PreToolUse[0].hooks[1]`. */
  readonly id: string;
  readonly dialect: HookDialect;
  readonly phase: HookPhase;
  /** For post hooks: which outcomes fire it. */
  readonly on: PostOutcomeFilter;
  /** The event name exactly as configured (`PreToolUse`, `BeforeTool`, `preToolUse`, …). */
  readonly event: string;
  /** The file it was read from, or `options` for hooks given in code. */
  readonly source: string;
  /** Position in configuration order across every source. */
  readonly order: number;
  readonly matcher: ToolMatcher;
  readonly ifRule: IfRule | undefined;
  /** Shell form: the command line; exec form: the program. */
  readonly command: string;
  /** Present for exec form (no shell). */
  readonly args: readonly string[] | undefined;
  /** The shell of shell form. */
  readonly shell: 'sh' | 'bash';
  /** Working directory; the project directory when absent. */
  readonly cwd: string | undefined;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** `onFailure: "block"`: a failure denies (pre) or blocks (post) instead of failing open. */
  readonly failClosed: boolean;
  /** Claude's `async: true`: runs in the background; its decisions are ignored. */
  readonly async: boolean;
  /** Copilot only: camelCase payload (`preToolUse`) or the VS Code-compatible snake_case one (`PreToolUse`). */
  readonly payloadStyle: 'camel' | 'snake';
}

/** A configuration entry that could not be used: the file, the entry, and why. */
export interface HookConfigProblem {
  readonly source: string;
  /** Where in the file, e.g. `hooks.PreToolUse[0].matcher`; empty for the whole file. */
  readonly entry: string;
  readonly message: string;
  /** The phase the entry belonged to, when known: a broken pre entry matters most in strict mode. */
  readonly phase?: HookPhase;
}

/** Hooks read from every source, in configuration order, and the entries that could not be used. */
export interface HookConfig {
  readonly hooks: readonly HookSpec[];
  readonly problems: readonly HookConfigProblem[];
}
