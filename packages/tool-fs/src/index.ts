/**
 * File tools for dsh — `read`, `write`, `edit`, `multi_edit`, `list`, `glob`
 * and `grep` — confined to the workspace roots, with the `fs/*` gate and its
 * read-before-edit handler.
 *
 * @packageDocumentation
 */
export { FsErrorCode } from './errors.js';
export {
  type ExternalNames,
  editExternal,
  globExternal,
  grepExternal,
  listExternal,
  multiEditExternal,
  readExternal,
  writeExternal,
} from './external.js';
export { type ToolFsOptions, toolFsOptionsSchema } from './options.js';
export { toolFs, toolFsPluginName, toolFsVersion } from './plugin.js';
export { type Observation, ReadLedger, type VetoKind, vetoCodes, vetoReason } from './read-ledger.js';
export type { EditOutput } from './tools/edit.js';
export type { GlobOutput } from './tools/glob.js';
export type { GrepOutput } from './tools/grep.js';
export type { ListEntry, ListOutput } from './tools/list.js';
export type { ReadOutput } from './tools/read.js';
export type { WriteOutput } from './tools/write.js';
export { isWithin } from './workspace.js';
