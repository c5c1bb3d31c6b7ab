import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { collectConfig } from '../config-check/collect.js';
import { type ConfigSection, renderConfigCheck } from '../config-check/render.js';
import { CliError, CliErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { checkPluginOptions } from '../host-factory.js';
import type { CliIo } from '../io.js';

/** Options of `dsh config check`. */
export interface ConfigCheckOptions {
  /** The project folder; the configuration's workspace (or the current directory) by default. */
  readonly dir?: string;
  readonly json: boolean;
  readonly config?: string;
  /** `hooks`: only the hook files, hooks and skipped hook entries (what `dsh hooks check` prints without `--tool`). */
  readonly section?: ConfigSection;
}

/**
 * `dsh config check`: lists, for a project folder, every file read (settings at each level,
 * hooks, skills, agents, MCP files), every permission rule, hook, skill, agent and MCP server
 * found, what was skipped and why, and every rule dsh reads differently from Claude Code, with
 * the Claude Code version the difference refers to. Nothing runs: no tool, no hook, no server.
 */
export async function runConfigCheck(io: CliIo, options: ConfigCheckOptions): Promise<ExitCode> {
  const loaded = loadConfig(io.cwd, options.config);
  const project = options.dir === undefined ? loaded.workspace : resolve(io.cwd, options.dir);
  let isDir = false;
  try {
    isDir = statSync(project).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new CliError(CliErrorCode.INPUT_INVALID, `${options.dir ?? project}: not a project folder (no such directory)`);
  const setup = { workspace: project, config: loaded.config, configSource: loaded.file ?? 'defaults' };
  checkPluginOptions(setup);
  const report = await collectConfig({ project, config: setup.config, configSource: setup.configSource });
  if (options.json) {
    const shown =
      options.section === 'hooks'
        ? {
            project: report.project,
            plugins: report.plugins,
            files: report.files.filter((f) => f.uses.includes('hooks')),
            hooks: report.hooks,
            skipped: report.skipped.filter((s) => s.kind === 'hook'),
          }
        : report;
    io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  } else {
    io.stdout.write(renderConfigCheck(io.style, report, options.section));
  }
  // Anything skipped (a settings file, a rule, a hook entry, a skill) is configuration not in force.
  const relevant = options.section === 'hooks' ? report.skipped.filter((s) => s.kind === 'hook') : report.skipped;
  return relevant.length > 0 ? ExitCode.CONFIG : ExitCode.OK;
}
