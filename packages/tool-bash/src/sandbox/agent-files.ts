/**
 * Files and directories in a workspace root that tools outside the sandbox
 * load and run (shell start-up files, git hooks, editor tasks, an agent's
 * settings, commands and MCP servers): kept read-only in every root, and
 * not creatable where missing, so a sandboxed command cannot plant code that
 * runs later without a sandbox. sandbox-runtime's mandatory set, plus the
 * agent settings files dsh's permissions read.
 */
export const agentFiles: readonly string[] = Object.freeze([
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.gitconfig',
  '.gitmodules',
  '.ripgreprc',
  '.mcp.json',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.git/hooks',
  '.git/config',
]);
