/** What a configuration file is read for; one file (`.claude/settings.json`) may serve several. */
export type FileUse = 'permissions' | 'hooks' | 'mcp' | 'skills' | 'agents';

/** A file or folder `dsh config check` looked at. */
export interface ConfigFile {
  /** Relative to the project, `~/…`, or absolute. */
  readonly path: string;
  readonly uses: readonly FileUse[];
  /** `read`: found and used; `missing`: not there (nothing to read); `skipped`: there, but none of it applies. */
  readonly status: 'read' | 'missing' | 'skipped';
  /** Why a file was skipped. */
  readonly why?: string;
}

/** Something left out: a rule, a settings file, a hook entry, a skill, an agent definition, an MCP file. */
export interface SkippedItem {
  readonly kind: 'rule' | 'settings' | 'hook' | 'skill' | 'agent' | 'mcp';
  /** The file (with `:line` or `#entry` when known), or `options`. */
  readonly path: string;
  /** The stable code of the plugin that skipped it (`INVALID_RULE`, `SKILL_BAD_YAML`, `ALLOW_TOOL_WILDCARD_SKIPPED`, …). */
  readonly code: string;
  readonly why: string;
  /** True when the whole item was left out; false when it loads with a part left out (a skill's unsupported `allowed-tools` entry, say). */
  readonly whole: boolean;
  readonly rule?: string;
}

/** A rule dsh applies with a meaning other than Claude Code's. */
export interface RuleDifferenceEntry {
  readonly rule: string;
  readonly source: string;
  readonly line?: number;
  readonly code: string;
  /** The Claude Code version the difference refers to. */
  readonly claudeCode: string;
  readonly dsh: 'skipped' | 'applied';
  readonly message: string;
}

/** Everything `dsh config check` found in a project folder; `--json` prints exactly this. */
export interface ConfigCheckReport {
  readonly project: string;
  /** Where the plugins' options came from: `defaults` or the `dsh.config.json` read. */
  readonly plugins: string;
  readonly files: readonly ConfigFile[];
  /** Permission rules in load order, with their file and line. */
  readonly rules: readonly { readonly list: string; readonly rule: string; readonly source: string; readonly line?: number }[];
  readonly hooks: readonly {
    readonly id: string;
    readonly dialect: string;
    readonly event: string;
    readonly source: string;
    readonly command: string;
  }[];
  readonly skills: readonly { readonly name: string; readonly source: string; readonly file: string }[];
  readonly agents: readonly { readonly name: string; readonly source: string; readonly file?: string }[];
  readonly mcpServers: readonly { readonly name: string; readonly source: string }[];
  readonly skipped: readonly SkippedItem[];
  readonly differences: readonly RuleDifferenceEntry[];
  /** Every diagnostic the plugins recorded on the host while loading. */
  readonly diagnostics: readonly { readonly code: string; readonly source: string; readonly message: string }[];
}
