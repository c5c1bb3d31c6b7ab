import type { Style } from '../render/style.js';
import type { ConfigCheckReport } from './report-types.js';

/** Which parts of the report to print: everything (`dsh config check`) or the hooks only (`dsh hooks check` without `--tool`). */
export type ConfigSection = 'all' | 'hooks';

/** The report as text: files, rules, hooks, skills, agents, MCP servers, what was skipped and why, and the differences from Claude Code. */
export function renderConfigCheck(style: Style, report: ConfigCheckReport, section: ConfigSection = 'all'): string {
  const out: string[] = [`${style.bold('project')} ${report.project}  ${style.dim(`(plugin options: ${report.plugins})`)}`, ''];
  const files = section === 'hooks' ? report.files.filter((f) => f.uses.includes('hooks')) : report.files;
  out.push(style.bold(`files (${files.length})`));
  for (const f of files) {
    const status = f.status === 'read' ? style.green('read') : f.status === 'missing' ? style.dim('missing') : style.red('skipped');
    out.push(
      `  ${status.padEnd(style.colour ? 16 : 7)} ${f.path}  ${style.dim(f.uses.join(', '))}${f.why === undefined ? '' : `\n           ${f.why}`}`,
    );
  }
  if (section === 'all') {
    out.push('', style.bold(`permission rules (${report.rules.length})`));
    for (const r of report.rules)
      out.push(`  ${r.list.padEnd(5)} ${r.rule}  ${style.dim(`${r.source}${r.line === undefined ? '' : `:${r.line}`}`)}`);
  }
  out.push('', style.bold(`hooks (${report.hooks.length})`));
  for (const h of report.hooks) out.push(`  ${h.event.padEnd(16)} ${h.command}  ${style.dim(h.id)}`);
  if (section === 'all') {
    out.push('', style.bold(`skills (${report.skills.length})`));
    for (const s of report.skills) out.push(`  ${s.name}  ${style.dim(`${s.file} (${s.source})`)}`);
    out.push('', style.bold(`agents (${report.agents.length})`));
    for (const a of report.agents) out.push(`  ${a.name}  ${style.dim(`${a.file ?? a.source} (${a.source})`)}`);
    out.push('', style.bold(`MCP servers (${report.mcpServers.length})`));
    for (const m of report.mcpServers) out.push(`  ${m.name}  ${style.dim(m.source)}`);
  }
  const skipped = section === 'hooks' ? report.skipped.filter((s) => s.kind === 'hook') : report.skipped;
  out.push('', style.bold(`skipped (${skipped.length})`));
  for (const s of skipped) out.push(`  ${style.yellow(s.code)} ${s.kind}${s.whole ? '' : ' (part)'} ${s.path}\n    ${s.why}`);
  if (section === 'all') {
    out.push('', style.bold(`differences from Claude Code (${report.differences.length})`));
    for (const d of report.differences) {
      const where = `${d.source}${d.line === undefined ? '' : `:${d.line}`}`;
      out.push(
        `  ${style.yellow(d.code)} ${d.rule}  ${style.dim(`${where}, Claude Code ${d.claudeCode}, dsh ${d.dsh} it`)}\n    ${d.message}`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}
