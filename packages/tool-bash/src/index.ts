/**
 * The dsh `bash` tool: a fresh `bash -c` per call in the session's working
 * directory, bounded output with the full text saved to a file, live output,
 * a process-tree kill on timeout or abort (a cgroup per call where the host
 * allows one), and a bubblewrap sandbox with a seccomp filter, hidden
 * secrets and process limits, chosen per call in `tools/pre-execute`.
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
export { type BwrapSandboxOptions, bwrapArgs, bwrapSandbox, seccompFd } from './sandbox/bwrap.js';
export { defaultDenyRead } from './sandbox/masks.js';
export { noSandbox } from './sandbox/none.js';
export type {
  EgressRelay,
  PreparedEgress,
  RelayNamespace,
  SandboxCommand,
  SandboxInput,
  SandboxPolicy,
  SandboxProbe,
  SandboxProvider,
} from './sandbox/provider.js';
export { seccompDeniedSyscalls, seccompFilter } from './sandbox/seccomp.js';
export type { SandboxFallback } from './sandbox-selection.js';
