/**
 * The `dsh` command as a library: run it in-process with `runCli`, build the
 * configured host with `buildHost`, read `dsh.config.json` with `loadConfig`.
 *
 * @packageDocumentation
 */
export { cliVersion, runCli } from './cli.js';
export {
  configFileName,
  type DshConfig,
  dshConfigSchema,
  type LoadedConfig,
  loadConfig,
  type PluginKey,
  parseConfig,
  pluginKeys,
} from './config.js';
export type { ConfigProblem } from './config-problems.js';
export { CliError, CliErrorCode } from './errors.js';
export { ExitCode } from './exit-codes.js';
export { type BuiltHost, buildHost, type HostSetup, type PluginOptions } from './host-factory.js';
export type { CliIo } from './io.js';
export { colourWanted, type Style, styleFor } from './render/style.js';
export { type HeldScreen, type LineOptions, TerminalUi, type TerminalUiOptions, type TextOut } from './render/terminal-ui.js';
