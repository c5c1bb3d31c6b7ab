import { DshError, definePlugin, ErrorCode, type Host, type Plugin } from '@deepseek-ai/dsh-core';
import { type FsRuntime, readBeforeEditName } from './internal/runtime.js';
import { parseToolFsOptions, type ToolFsOptions } from './options.js';
import { ReadLedger, type VetoKind, vetoReason } from './read-ledger.js';
import { probeRipgrep } from './search/ripgrep.js';
import { editTool, multiEditTool } from './tools/edit.js';
import { globTool } from './tools/glob.js';
import { grepTool } from './tools/grep.js';
import { listTool } from './tools/list.js';
import { readTool } from './tools/read.js';
import { writeTool } from './tools/write.js';
import { version } from './version.js';
import { Workspace } from './workspace.js';

/** The plugin's name, as `host.plugins()` lists it. */
export const toolFsPluginName = 'tool-fs';
/** The plugin's version. */
export const toolFsVersion: string = version;

/**
 * The file tools plugin: `read`, `write`, `edit`, `multi_edit`, `list`,
 * `glob` and `grep`, confined to the configured roots, plus the
 * read-before-edit handler on the `fs/write-intent` and `fs/edit-intent`
 * gates. Options are checked here (`INVALID_OPTIONS` naming the field);
 * roots are resolved when the host registers it. ripgrep is looked for then
 * too, but only `search: 'ripgrep'` waits for the answer: spawning `rg` can
 * take seconds on a busy machine, and registration has a deadline.
 */
export function toolFs(options: ToolFsOptions = {}): Plugin {
  const o = parseToolFsOptions(options);
  return definePlugin({
    name: toolFsPluginName,
    version: toolFsVersion,
    async register(host: Host) {
      // The session's folder is the host's unless these options name another.
      const cwd = o.cwd ?? host.anchors.cwd;
      const workspace = Workspace.open(cwd, o.roots ?? [cwd], o.readOnlyRoots, o.allowHardLinks);
      const ripgrep = o.search === 'builtin' ? Promise.resolve(undefined) : probeRipgrep(o.ripgrepPath);
      if (o.search === 'ripgrep' && (await ripgrep) === undefined) {
        throw new DshError(
          ErrorCode.INVALID_OPTIONS,
          `toolFs: search: "ripgrep" was asked for, but "${o.ripgrepPath} --version" does not run`,
        );
      }
      const ledger = ReadLedger.fromEvents(o.history);
      ledger.replay(host.events.list());
      host.events.subscribe((event) => {
        if (event.type === 'fs/observed') ledger.observe(event.data);
      });
      const rt: FsRuntime = { workspace, options: o, ledger, ripgrep };
      if (o.readBeforeEdit) registerReadBeforeEdit(host, rt);
      host.tools.register(readTool(rt));
      host.tools.register(writeTool(rt));
      host.tools.register(editTool(rt));
      host.tools.register(multiEditTool(rt));
      host.tools.register(listTool(rt));
      host.tools.register(globTool(rt));
      host.tools.register(grepTool(rt));
    },
  });
}

function registerReadBeforeEdit(host: Host, rt: FsRuntime): void {
  const decide = (kind: VetoKind | undefined, path: string) => (kind === undefined ? undefined : vetoReason(kind, path));
  host.gates.on('fs/write-intent', readBeforeEditName, (data) => decide(rt.ledger.check('write', data), data.path));
  host.gates.on('fs/edit-intent', readBeforeEditName, (data) => decide(rt.ledger.check('edit', data), data.path));
}
