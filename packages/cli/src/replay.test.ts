import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeTranscript, put, runDsh, scratchDir, workspace } from './fixtures/run-dsh.js';
import type { ReplayRow } from './replay/rows.js';

interface Report {
  mode: string;
  rows: ReplayRow[];
  summary: { calls: number; decisions: Record<string, number>; byPolicy: Record<string, { deny: number; ask: number }> };
  expectations?: { ok: boolean; failures: string[] }[];
}

const rowOf = (report: Report, call: string): ReplayRow => {
  const row = report.rows.find((r) => r.call === call);
  if (row === undefined) throw new Error(`no row for ${call}`);
  return row;
};

describe('dsh replay of a Claude Code transcript', () => {
  it('maps every call through the tools’ own external names and reports each policy decision without running bodies', async () => {
    const ws = workspace();
    const before = readFileSync(join(ws.root, 'src/app.js'), 'utf8');
    const run = await runDsh(['replay', claudeTranscript, '--json'], { cwd: ws.root, home: ws.home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.mode).toBe('dry-run');
    expect(report.rows.map((r) => [r.call, r.recordedName, r.tool ?? null, r.decision, r.by])).toEqual([
      ['toolu_01Read0app', 'Read', 'read', 'allow', 'permissions'],
      ['toolu_01Read0util', 'Read', 'read', 'allow', 'permissions'],
      ['toolu_02Grep', 'Grep', 'grep', 'allow', 'permissions'],
      ['toolu_03Edit', 'Edit', 'edit', 'allow', 'permissions'],
      ['toolu_04Todo', 'TodoWrite', 'todo_write', 'ask', 'permissions'],
      ['toolu_05Test', 'Bash', 'bash', 'ask', 'permissions'],
      ['toolu_06Rm', 'Bash', 'bash', 'deny', 'hooks-bridge'],
      ['toolu_07Cfg', 'Write', 'write', 'deny', 'permissions'],
      ['toolu_08Passwd', 'Read', 'read', 'ask', 'permissions'],
      ['toolu_09Push', 'Bash', 'bash', 'ask', 'permissions'],
      ['toolu_10Fetch', 'WebFetch', 'web_fetch', 'ask', 'permissions'],
    ]);
    // The recording's cwd is rewritten to the workspace, and Grep's `-n` reaches our grep through fromExternal.
    expect(rowOf(report, 'toolu_01Read0app').args).toEqual({ file_path: join(ws.root, 'src/app.js') });
    expect(rowOf(report, 'toolu_06Rm').args).toMatchObject({ command: `rm -rf ${ws.root}/build` });
    expect(rowOf(report, 'toolu_06Rm').reason).toContain('rm -rf is not allowed');
    expect(rowOf(report, 'toolu_07Cfg').reason).toContain('Edit(./config/**)');
    expect(report.summary.decisions).toEqual({ allow: 4, ask: 5, deny: 2, error: 0, unmapped: 0 });
    expect(report.summary.byPolicy).toEqual({ 'hooks-bridge': { deny: 1, ask: 0 }, permissions: { deny: 1, ask: 5 } });
    // Nothing ran: the edit left the file alone and no post-execute hook fired.
    expect(readFileSync(join(ws.root, 'src/app.js'), 'utf8')).toBe(before);
  });

  it('prints a table and a per-policy summary for people', async () => {
    const ws = workspace();
    const run = await runDsh(['replay', claudeTranscript], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('dry run: no tool body ran');
    expect(run.stdout).toMatch(/CALL +TOOL +TARGET +DECISION +STAGE +BY +REASON/);
    expect(run.stdout).toMatch(
      /toolu_06Rm +Bash→bash +rm -rf build +deny PRE_EXECUTE_DENIED +pre-execute +hooks-bridge +rm -rf is not allowed/,
    );
    // File tools show their path (relative to the workspace inside it), and reasons are whole when stdout is not a terminal.
    expect(run.stdout).toMatch(/toolu_01Read0app +Read→read +src\/app\.js +allow/);
    expect(run.stdout).toMatch(/toolu_07Cfg +Write→write +config\/production\.json +deny/);
    expect(run.stdout).toMatch(/toolu_08Passwd +Read→read +\/etc\/passwd +ask→allowed/);
    expect(run.stdout).toContain(
      'approval required by ask rule "Bash(git push *)" from .claude/settings.json:10 (matched "git push --force origin main")',
    );
    expect(run.stdout).not.toContain('…');
    expect(run.stdout).toContain('11 calls: 4 allow, 5 ask, 2 deny, 0 error, 0 unmapped');
    expect(run.stdout).toMatch(/permissions +1 deny, 5 ask/);
  });

  it('answers asks with no when told, and counts the denial against the policy that asked', async () => {
    const ws = workspace();
    const run = await runDsh(['replay', claudeTranscript, '--approval', 'deny', '--json'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    const push = rowOf(report, 'toolu_09Push');
    expect(push).toMatchObject({ decision: 'ask', approval: 'rejected', stage: 'approval', by: 'permissions', code: 'APPROVAL_REJECTED' });
    expect(push.reason).toContain('Bash(git push *)');
    // How approvals were answered is said once, in the header, not on every row.
    expect(push.reason).not.toContain('--approval deny');
    const text = await runDsh(['replay', claudeTranscript, '--approval', 'deny'], { cwd: ws.root, home: ws.home });
    expect(text.stdout.split('approvals answered "deny"').length - 1).toBe(1);
    expect(text.stdout).not.toContain('dsh replay answers every approval');
  });

  it('runs the bodies in a scratch copy with --execute and leaves the workspace untouched', async () => {
    const ws = workspace();
    const before = readFileSync(join(ws.root, 'src/app.js'), 'utf8');
    const run = await runDsh(['replay', claudeTranscript, '--execute', '--approval', 'deny', '--json'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report & { workspace: string };
    expect(report.mode).toBe('execute');
    expect(report.workspace).not.toBe(ws.root);
    expect(rowOf(report, 'toolu_01Read0app').result).toBe('ok');
    expect(rowOf(report, 'toolu_03Edit').result).toBe('ok');
    expect(readFileSync(join(report.workspace, 'src/app.js'), 'utf8')).toContain("greet(process.argv[2] ?? 'world')");
    expect(readFileSync(join(ws.root, 'src/app.js'), 'utf8')).toBe(before);
    expect(existsSync(join(ws.root, 'build'))).toBe(false);
  });

  it('exits 0 when every expectation holds and 1, listing the failures, when one does not', async () => {
    const ws = workspace();
    const good = put(
      ws.base,
      'good.json',
      JSON.stringify({
        expect: [
          { tool: 'Bash', input: 'rm -rf', decision: 'deny', by: 'hooks-bridge' },
          { call: 'toolu_07Cfg', decision: 'deny', code: 'PRE_EXECUTE_DENIED' },
          { tool: 'read', input: 'src/', decision: 'allow' },
        ],
      }),
    );
    const ok = await runDsh(['replay', claudeTranscript, '--expect', good], { cwd: ws.root, home: ws.home });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('expectations: 3 of 3 hold');
    const bad = put(
      ws.base,
      'bad.json',
      JSON.stringify([
        { tool: 'Bash', decision: 'deny' },
        { tool: 'NotebookEdit', decision: 'deny' },
      ]),
    );
    const failed = await runDsh(['replay', claudeTranscript, '--expect', bad, '--json'], { cwd: ws.root, home: ws.home });
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout) as Report;
    expect(report.expectations?.map((e) => e.ok)).toEqual([false, false]);
    expect(report.expectations?.[0]?.failures).toContain('toolu_05Test (Bash): ask by permissions');
    expect(report.expectations?.[1]?.failures).toEqual(['selected no call']);
  });

  it('exits 4 naming the entry for an invalid expectations file', async () => {
    const ws = workspace();
    const file = put(ws.base, 'wrong.json', JSON.stringify([{ tool: 'Bash', decision: 'block' }]));
    const run = await runDsh(['replay', claudeTranscript, '--expect', file], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/EXPECTATIONS_INVALID: .*wrong\.json: 0\.decision: /);
  });
});

describe('dsh replay of other inputs', () => {
  it('replays a dsh session log by our own tool names, one step per batch of calls', async () => {
    const ws = workspace();
    const event = (seq: number, type: string, call: string, data: unknown) =>
      JSON.stringify({ seq, at: '2025-09-02T10:00:00.000Z', session: 's1', type, call, token: 't', data });
    const log = put(
      ws.base,
      'session.jsonl',
      [
        event(1, 'tool/call', 'c1', { name: 'read', args: { file_path: 'src/app.js' } }),
        event(2, 'tool/call', 'c2', { name: 'bash', args: '{"command":"rm -rf src"}' }),
        event(3, 'tool/result', 'c1', { name: 'read', outcome: { status: 'ok', stage: 'execute', output: '' } }),
        event(4, 'tool/result', 'c2', { name: 'bash', outcome: { status: 'ok', stage: 'execute', output: '' } }),
        event(5, 'tool/call', 'c3', { name: 'notebook', args: {} }),
        '',
      ].join('\n'),
    );
    const run = await runDsh(['replay', log, '--json'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.rows.map((r) => [r.call, r.decision, r.by])).toEqual([
      ['c1', 'allow', 'permissions'],
      ['c2', 'deny', 'hooks-bridge'],
      ['c3', 'unmapped', 'dsh replay'],
    ]);
  });

  it('exits 4 with TRANSCRIPT_INVALID when a transcript has no tool calls, naming its unreadable lines', async () => {
    const dir = scratchDir();
    const broken = put(dir, 'broken.jsonl', '{"type":"user"}\nnot json at all\n{"type":"user"}\n');
    const run = await runDsh(['replay', broken], { cwd: dir, home: dir });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('broken.jsonl: no tool calls found (1 line unreadable, the first 2: not a JSON line)');
    const empty = put(dir, 'chat.jsonl', '{"type":"user","message":{"role":"user","content":"hi"}}\n');
    const none = await runDsh(['replay', empty], { cwd: dir, home: dir });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('no tool calls found (expected');
    const block = put(
      dir,
      'block.jsonl',
      '{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","name":"Bash","input":{}}]}}\n',
    );
    const bad = await runDsh(['replay', block], { cwd: dir, home: dir });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('the first 1: message.content[0]: a tool_use block needs a string id');
  });

  it('replays the rest of a transcript with a bad line in the middle, and says which line it left out', async () => {
    const ws = workspace();
    const lines = readFileSync(claudeTranscript, 'utf8').split('\n');
    const broken = put(ws.base, 'middle.jsonl', [...lines.slice(0, 2), 'not json at all', ...lines.slice(2)].join('\n'));
    const json = await runDsh(['replay', broken, '--json'], { cwd: ws.root, home: ws.home });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as Report & { transcript: { skipped: { line: number; reason: string }[] } };
    expect(report.summary.calls).toBe(11);
    expect(report.transcript.skipped).toEqual([{ line: 3, reason: 'not a JSON line' }]);
    const text = await runDsh(['replay', broken, '--no-color'], { cwd: ws.root, home: ws.home });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${broken}:3: not a JSON line: left out`);
  });

  it('leaves out a torn last line, as a transcript still being written has, and says so', async () => {
    const ws = workspace();
    const text = readFileSync(claudeTranscript, 'utf8');
    const torn = put(ws.base, 'torn.jsonl', `${text}{"type":"assistant","message":{"id":"msg_x","content":[{"type":"tool_`);
    const run = await runDsh(['replay', torn, '--json'], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report & { transcript: { skipped: { line: number; reason: string }[] } };
    expect(report.summary.calls).toBe(11);
    const last = text.split('\n').length;
    expect(report.transcript.skipped).toEqual([{ line: last, reason: 'the last line was cut mid-write' }]);
    const plain = await runDsh(['replay', torn, '--no-color'], { cwd: ws.root, home: ws.home });
    expect(plain.stdout).toContain(`${torn}:${last}: the last line was cut mid-write: left out`);
  });
});
