import type { McpListReport, McpListServer } from '../commands/mcp-list.js';
import { relativeTo } from '../render/cards.js';
import type { Style } from '../render/style.js';

/** `dsh mcp list` for people: each server, its state and tools, and per tool the rules and hooks that apply. */
export function renderMcpList(report: McpListReport, s: Style, workspace: string): string {
  const out: string[] = [];
  if (!report.configured) return 'The mcp plugin is turned off in the configuration (plugins.mcp: false).\n';
  if (report.servers.length === 0 && report.problems.length === 0) {
    return 'No MCP servers are configured (looked in .claude/settings.json and .mcp.json, and plugins.mcp of dsh.config.json).\n';
  }
  if (report.mode !== null) out.push(s.dim(`permission mode: ${report.mode}`), '');
  for (const server of report.servers) out.push(...renderServer(server, s), '');
  if (report.problems.length > 0) {
    out.push(s.bold('Configuration problems'));
    for (const p of report.problems) out.push(`  ${s.yellow('!')} ${p.source}${p.key === '' ? '' : ` ${p.key}`}: ${p.message}`);
    out.push('');
  }
  return `${relativeTo(workspace, out.join('\n'))}\n`;
}

function renderServer(server: McpListServer, s: Style): string[] {
  const state =
    server.state === 'ready'
      ? s.green(server.state)
      : server.state === 'invalid' || server.state === 'failed'
        ? s.red(server.state)
        : s.yellow(server.state);
  const facts = [
    state,
    server.transport,
    server.pid === null ? undefined : `pid ${server.pid}`,
    server.protocolVersion === null ? undefined : `protocol ${server.protocolVersion}`,
    server.serverInfo === null ? undefined : `${server.serverInfo.name} ${server.serverInfo.version}`,
    server.trusted ? 'trusted' : undefined,
  ].filter((f): f is string => f !== undefined && f !== null);
  const lines = [`${s.bold(server.name)} ${facts.join(' · ')} ${s.dim(`(${server.source})`)}`];
  if (server.lastError !== null) lines.push(`  ${s.red('✘')} ${server.lastError.code}: ${server.lastError.message}`);
  if (server.state !== 'ready' && server.stderrTail.trim() !== '') {
    lines.push(
      `  ${s.dim('stderr:')}`,
      ...server.stderrTail
        .trimEnd()
        .split('\n')
        .slice(-5)
        .map((l) => `    ${s.dim(l)}`),
    );
  }
  for (const tool of server.tools) {
    lines.push(`  ${s.bold(tool.name)} ${s.dim(`— ${firstLine(tool.description)}`)}`);
    if (tool.rules.length === 0) lines.push(`    rules: ${s.dim('none name it')}`);
    for (const r of tool.rules) lines.push(`    rule:  ${colourList(r.list, s)} ${JSON.stringify(r.rule)} ${s.dim(`(${r.where})`)}`);
    if (tool.decision !== undefined)
      lines.push(`    decides: ${colourList(tool.decision.decision, s)} ${s.dim(`— ${tool.decision.reason}`)}`);
    if (tool.hooks.length === 0) lines.push(`    hooks: ${s.dim('none match it')}`);
    for (const h of tool.hooks) {
      const matcher = h.matcher === undefined ? 'every tool' : `matcher ${JSON.stringify(h.matcher)}`;
      const when = h.if === undefined ? '' : ` if ${JSON.stringify(h.if)}`;
      lines.push(`    hook:  ${h.event} ${matcher}${when} → ${h.command} ${s.dim(`(${h.source})`)}`);
    }
  }
  for (const skipped of server.skipped) lines.push(`  ${s.dim(`skipped ${skipped.tool}: ${skipped.reason}`)}`);
  return lines;
}

function colourList(list: string, s: Style): string {
  return list === 'deny' ? s.red(list) : list === 'allow' ? s.green(list) : s.yellow(list);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 100)}…` : line;
}
