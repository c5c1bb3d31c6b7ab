/**
 * The dsh `bash` tool: a fresh `bash -c` per call in the session's working
 * directory, bounded output with the full text saved to a file, live output,
 * a process-tree kill on timeout or abort, and a bubblewrap sandbox chosen
 * per call in `tools/pre-execute`.
 *
 * @packageDocumentation
 */
export { type BashArgs, bashInputSchema } from './bash-tool.js';
export { callMarkerVariable, defaultEnvAllowList } from './environment.js';
export { BashErrorCode } from './errors.js';
export { bashExternalNames } from './external.js';
export { type ResolvedToolBashOptions, type ToolBashOptions, toolBashOptionsSchema } from './options.js';
export { bashSandboxEvent, toolBash } from './plugin.js';
export {
  killProcessesMatching,
  type MatchOptions,
  type ProcessInfo,
  processesMatching,
  waitForNoProcesses,
} from './processes.js';
export { type BashResult, bashResultSchema, type OutputProgress, type StoppedBy, type StoppedResult } from './result.js';
export { type BwrapSandboxOptions, bwrapArgs, bwrapSandbox } from './sandbox/bwrap.js';
export { noSandbox } from './sandbox/none.js';
export type { SandboxCommand, SandboxPolicy, SandboxProbe, SandboxProvider } from './sandbox/provider.js';
export type { SandboxFallback } from './sandbox-selection.js';
