import { describe, expect, it } from 'vitest';
import { claudeAsksTranscript, claudeTranscript, put, runDsh, workspace } from './fixtures/run-dsh.js';
import type { PolicyAdvice } from './replay/policy-advice.js';

interface Report {
  policy: PolicyAdvice;
}

describe('dsh replay tells how to fix the policy', () => {
  it('counts each rule’s hits, names the rules that never matched, and the calls the mode decided', async () => {
    const ws = workspace();
    const run = await runDsh(['replay', claudeAsksTranscript, '--json'], { cwd: ws.root, home: ws.home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const { policy } = JSON.parse(run.stdout) as Report;
    expect(policy.rules.map((r) => [r.list, r.rule, r.source, r.hits, r.calls])).toEqual([
      ['deny', 'Edit(./config/**)', '.claude/settings.json:13', 0, []],
      ['deny', 'Read(./.env)', '.claude/settings.json:14', 0, []],
      ['ask', 'Bash(git push *)', '.claude/settings.json:10', 1, ['toolu_A9Push']],
      ['allow', 'Bash(echo *)', '.claude/settings.json:5', 1, ['toolu_A7Echo']],
      ['allow', 'Bash(sleep *)', '.claude/settings.json:6', 0, []],
      ['allow', 'Bash(ls *)', '.claude/settings.json:7', 0, []],
    ]);
    expect(policy.byMode).toEqual({ acceptEdits: { ask: 8 } });
  });

  it('suggests allow rules in Claude Code’s syntax for the commands asked most often, each with the calls it covers', async () => {
    const ws = workspace();
    const run = await runDsh(['replay', claudeAsksTranscript, '--json'], { cwd: ws.root, home: ws.home });
    const { policy } = JSON.parse(run.stdout) as Report;
    expect(policy.suggestions.map((s) => [s.rules, s.covers])).toEqual([
      [['Bash(npm test *)'], ['toolu_A1Test', 'toolu_A2TestCov', 'toolu_A4TestOne']],
      [['Bash(npm run lint)'], ['toolu_A3Lint', 'toolu_B1Lint']],
      [['Bash(git log *)'], ['toolu_A5Log', 'toolu_A6LogP']],
      [['Read(//etc/hosts)'], ['toolu_A8Hosts']],
    ]);
    // An ask rule asked for the push: no allow rule would change that, so none is suggested for it.
    expect(policy.askedByRule).toEqual(['toolu_A9Push']);
  });

  it('the suggested rules, pasted into .claude/settings.json, allow exactly the calls they were said to cover', async () => {
    const ws = workspace();
    const first = await runDsh(['replay', claudeAsksTranscript, '--json'], { cwd: ws.root, home: ws.home });
    const { policy } = JSON.parse(first.stdout) as Report;
    const settingsPath = '.claude/settings.json';
    const { readFileSync } = await import('node:fs');
    const settings = JSON.parse(readFileSync(`${ws.root}/${settingsPath}`, 'utf8')) as { permissions: { allow: string[] } };
    settings.permissions.allow.push(...policy.suggestions.flatMap((s) => s.rules));
    put(ws.root, settingsPath, JSON.stringify(settings, null, 2));
    const again = await runDsh(['replay', claudeAsksTranscript, '--json'], { cwd: ws.root, home: ws.home });
    const report = JSON.parse(again.stdout) as Report & { rows: { call: string; decision: string }[] };
    const covered = new Set(policy.suggestions.flatMap((s) => s.covers));
    for (const row of report.rows) {
      if (covered.has(row.call)) expect(row.decision, row.call).toBe('allow');
    }
    expect(report.rows.find((r) => r.call === 'toolu_A9Push')?.decision).toBe('ask');
    expect(report.policy.suggestions).toEqual([]);
    expect(report.policy.rules.find((r) => r.rule === 'Bash(npm test *)')?.hits).toBe(3);
  });

  it('prints the hits and the suggestions for people, ready to paste', async () => {
    const ws = workspace();
    const run = await runDsh(['replay', claudeAsksTranscript], { cwd: ws.root, home: ws.home });
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/ask +Bash\(git push \*\) +\.claude\/settings\.json:10 +1 call: toolu_A9Push/);
    expect(out).toMatch(/allow +Bash\(ls \*\) +\.claude\/settings\.json:7 +never matched/);
    expect(out).toContain('no rule, decided by the mode acceptEdits: 8 ask');
    expect(out).toMatch(/"Bash\(npm test \*\)" +— commands starting with npm test; covers 3:\n +toolu_A1Test +npm test\n/);
    const json = /All of them, as JSON:\n(\{[\s\S]*?\n\})\n/.exec(out);
    expect(json).not.toBeNull();
    expect(JSON.parse((json as RegExpExecArray)[1] as string)).toEqual({
      permissions: { allow: ['Bash(npm test *)', 'Bash(npm run lint)', 'Bash(git log *)', 'Read(//etc/hosts)'] },
    });
    expect(out).toMatch(/Asked by an ask rule or another policy .*: toolu_A9Push/);
  });

  it('suggests rules for asked calls also when approvals were answered no', async () => {
    const ws = workspace();
    const run = await runDsh(['replay', claudeTranscript, '--approval', 'deny', '--json'], { cwd: ws.root, home: ws.home });
    const { policy } = JSON.parse(run.stdout) as Report;
    // The todo list, npm test, the read of /etc/passwd and the fetch were asked only for want of an allow rule.
    expect(policy.suggestions.map((s) => s.rules)).toEqual([
      ['TodoWrite'],
      ['Bash(npm test)'],
      ['Read(//etc/passwd)'],
      ['WebFetch(domain:example.com)'],
    ]);
  });
});
