import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { loadHookConfig } from '@deepseek-ai/dsh-hooks-bridge';
import { defaultSettingsFiles } from '@deepseek-ai/dsh-permissions';
import type { DshConfig } from '../config.js';
import { buildHost } from '../host-factory.js';
import { defaultMcpFiles } from '../plugin-factories.js';
import { unexecutableScript } from './hook-scripts.js';
import type { ConfigCheckReport, ConfigFile, FileUse, SkippedItem } from './report-types.js';

/** What `collectConfig` needs: the project folder and the configuration that names the plugins' options. */
export interface CollectOptions {
  readonly project: string;
  readonly config: DshConfig;
  readonly configSource: string;
}

type Options = Record<string, unknown>;

/**
 * Reads a project folder's configuration the way the plugins read it, through their public APIs:
 * the permissions plugin's rules and problems, the hooks bridge's `loadHookConfig`, the skill
 * catalog and the subagent catalog of a real host (no MCP server is started, no tool runs),
 * and the MCP files' server names. Every file looked at is listed, read or not.
 */
export async function collectConfig(options: CollectOptions): Promise<ConfigCheckReport> {
  const { project, config } = options;
  const plugins = (config.plugins ?? {}) as Record<string, Options | false | undefined>;
  const opts = (key: string): Options | undefined => {
    const value = plugins[key];
    return value === false ? undefined : (value ?? {});
  };
  const files = new Map<string, ConfigFile>();
  const show = (path: string): string => displayPath(path, project, homeOf(opts('permissions')));
  const look = (path: string, use: FileUse): void => {
    const shown = show(path);
    const known = files.get(shown);
    if (known !== undefined) {
      if (!known.uses.includes(use)) files.set(shown, { ...known, uses: [...known.uses, use] });
      return;
    }
    files.set(shown, { path: shown, uses: [use], status: existsSync(path) ? 'read' : 'missing' });
  };
  const skipped: SkippedItem[] = [];

  const {
    host,
    permissions: perms,
    skills,
    subagents,
    shutdown,
  } = await buildHost({
    workspace: project,
    config: { ...config, defaultDecision: 'deny' },
    configSource: options.configSource,
    session: 'config-check',
    overrides: {
      mcp: false,
      codeMode: false,
      otel: false,
      timeoutPolicy: false,
      retryPolicy: false,
      toolBash: { sandbox: { provider: 'none' } },
    },
  });
  try {
    const permOptions = opts('permissions');
    if (permOptions !== undefined) {
      const anchors = {
        cwd: project,
        projectDir: resolve(project, String(permOptions.projectDir ?? project)),
        homeDir: homeOf(permOptions),
      };
      const settingsFiles =
        permOptions.settingsFiles === false ? [] : ((permOptions.settingsFiles as string[] | undefined) ?? defaultSettingsFiles(anchors));
      for (const file of settingsFiles) look(resolve(project, file), 'permissions');
    }
    const hookOptions = opts('hooksBridge');
    const hookConfig =
      hookOptions === undefined
        ? undefined
        : loadHookConfig({
            projectDir: resolve(project, String(hookOptions.projectDir ?? project)),
            homeDir: typeof hookOptions.homeDir === 'string' ? hookOptions.homeDir : homedir(),
            userSettings: hookOptions.userSettings !== false,
            ...(Array.isArray(hookOptions.sources) ? { sources: hookOptions.sources as never } : {}),
          });
    if (hookOptions !== undefined) {
      const dir = resolve(project, String(hookOptions.projectDir ?? project));
      const home = typeof hookOptions.homeDir === 'string' ? hookOptions.homeDir : homedir();
      const user = hookOptions.userSettings !== false;
      for (const file of [
        ...(user ? [join(home, '.claude', 'settings.json')] : []),
        join(dir, '.claude', 'settings.json'),
        join(dir, '.claude', 'settings.local.json'),
        ...(user ? [join(home, '.gemini', 'settings.json')] : []),
        join(dir, '.gemini', 'settings.json'),
        ...jsonFilesIn(join(dir, '.github', 'hooks')),
      ]) {
        look(file, 'hooks');
      }
    }
    const mcpOptions = opts('mcp');
    const mcpServers: { name: string; source: string }[] = [];
    if (mcpOptions !== undefined) {
      const given = Array.isArray(mcpOptions.configFiles) ? (mcpOptions.configFiles as string[]) : defaultMcpFiles;
      for (const file of given) {
        const path = resolve(project, file);
        look(path, 'mcp');
        const servers = mcpServersOf(path);
        if (servers.error !== undefined) {
          skipped.push({ kind: 'mcp', path: show(path), code: 'MCP_CONFIG_INVALID', why: servers.error, whole: true });
        }
        for (const name of servers.names) mcpServers.push({ name, source: show(path) });
      }
    }

    const catalog = skills?.catalog();
    for (const root of catalog?.roots ?? []) look(root.path, 'skills');
    for (const skill of catalog?.skills ?? []) look(skill.file, 'skills');
    // A skill or agent left out entirely, or one that loads with a part left out (`whole: false`).
    for (const p of catalog?.problems ?? [])
      skipped.push({ kind: 'skill', path: show(p.path), code: p.code, why: p.message, whole: p.skipped });
    const agents = subagents?.catalog().agents.filter((a) => a.source !== 'built-in') ?? [];
    for (const agent of agents) if (agent.file !== undefined) look(agent.file, 'agents');
    for (const p of subagents?.problems() ?? [])
      skipped.push({ kind: 'agent', path: show(p.path), code: p.code, why: p.message, whole: p.skipped });

    const permProblems = perms?.problems() ?? [];
    const rules = (perms?.rules() ?? []).map((r) => ({
      list: r.list,
      rule: r.rule.text,
      source: r.origin.source,
      ...(r.origin.line === undefined ? {} : { line: r.origin.line }),
    }));
    for (const p of permProblems) {
      if (p.difference !== undefined && p.difference.dsh === 'applied') continue;
      const kind = p.rule === undefined ? 'settings' : 'rule';
      const path = p.file === undefined ? 'options' : `${show(p.file)}${p.line === undefined ? '' : `:${p.line}`}`;
      skipped.push({ kind, path, code: p.code, why: p.message, whole: true, ...(p.rule === undefined ? {} : { rule: p.rule }) });
      if (kind === 'settings' && p.file !== undefined && p.line === undefined) {
        const entry = files.get(show(p.file));
        if (entry !== undefined) files.set(entry.path, { ...entry, status: 'skipped', why: p.message });
      }
    }
    const differences = permProblems.flatMap((p) =>
      // A rule dsh skips as Claude Code does is listed with what was skipped; these are the rules that mean something else.
      p.difference?.dsh !== 'applied' || p.rule === undefined
        ? []
        : [
            {
              rule: p.rule,
              source: p.file === undefined ? 'options' : show(p.file),
              ...(p.line === undefined ? {} : { line: p.line }),
              code: p.code,
              claudeCode: p.difference.claudeCode,
              dsh: p.difference.dsh,
              message: p.message,
            },
          ],
    );
    for (const p of hookConfig?.problems ?? []) {
      skipped.push({
        kind: 'hook',
        path: p.entry === '' ? p.source : `${p.source}#${p.entry}`,
        code: 'HOOK_CONFIG_INVALID',
        why: p.message,
        whole: true,
      });
    }
    const hookDir = resolve(project, String(hookOptions?.projectDir ?? project));
    for (const h of hookConfig?.hooks ?? []) {
      const script = unexecutableScript(h.command, hookDir, process.env);
      if (script === undefined) continue;
      skipped.push({
        kind: 'hook',
        path: `${h.source}#${h.id}`,
        code: 'HOOK_NOT_EXECUTABLE',
        why: `${show(script)} has no execute bit: the hook fails on every call it matches (chmod +x it)`,
        whole: false,
      });
    }
    return {
      project,
      plugins: Object.keys(plugins).length === 0 ? 'defaults' : options.configSource,
      files: [...files.values()],
      rules,
      hooks: (hookConfig?.hooks ?? []).map((h) => ({ id: h.id, dialect: h.dialect, event: h.event, source: h.source, command: h.command })),
      skills: (catalog?.skills ?? []).map((s) => ({ name: s.name, source: s.source, file: show(s.file) })),
      agents: agents.map((a) => ({ name: a.name, source: a.source, ...(a.file === undefined ? {} : { file: show(a.file) }) })),
      mcpServers,
      skipped,
      differences,
      diagnostics: host.diagnostics.list().map((d) => ({ code: d.code, source: d.source, message: d.message })),
    };
  } finally {
    await shutdown();
  }
}

function homeOf(options: Options | undefined): string {
  return typeof options?.homeDir === 'string' ? options.homeDir : homedir();
}

/** A path as users see it: relative to the project, `~/…`, or absolute. */
function displayPath(path: string, project: string, home: string): string {
  const inProject = relative(project, path);
  if (inProject === '') return '.';
  if (!inProject.startsWith('..') && !isAbsolute(inProject)) return inProject;
  const inHome = relative(home, path);
  if (inHome !== '' && !inHome.startsWith('..') && !isAbsolute(inHome)) return `~/${inHome}`;
  return path;
}

function jsonFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/** The server names a Claude Code MCP file declares (`mcpServers`); a file that is missing declares none. */
function mcpServersOf(path: string): { names: string[]; error?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { names: [] } : { names: [], error: (error as Error).message };
  }
  try {
    const servers = (JSON.parse(text) as { mcpServers?: unknown } | null)?.mcpServers;
    if (servers === undefined) return { names: [] };
    if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
      return { names: [], error: '"mcpServers" is not an object' };
    return { names: Object.keys(servers) };
  } catch (error) {
    return { names: [], error: `not valid JSON: ${(error as Error).message}` };
  }
}
