import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { claudeTranscript, runDsh, scratchDir } from './fixtures/run-dsh.js';

interface CallJson {
  id: string;
  name: string;
  outcome: { status: string } | null;
  synthetic: boolean;
  durationMs: number | null;
  decisions: { decision: string; by: { kind: string; rule?: string }[] }[];
  approvals: { type: string; data: { answer?: string; source?: string } }[];
  hooks: { event: string }[];
  events: { seq: number; type: string; call?: string }[];
  children: CallJson[];
}

interface SessionJson {
  droppedTornLine: boolean;
  unknownOutcomes: string[];
  unknownEventTypes: string[];
  steps: { index: number; calls: CallJson[]; notes: { type: string }[]; start: object | null; end: object | null }[];
}

/** One real demo run, whose session log every test reads (each in its own copy when it changes it). */
let demoLog = '';
let home = '';
let logText = '';

beforeAll(async () => {
  home = scratchDir();
  const demo = await runDsh(['demo', '--no-sandbox'], { cwd: home, home });
  expect(demo.code).toBe(0);
  const pointed = /dsh log (\S+)\n$/.exec(demo.stdout);
  expect(pointed).not.toBeNull();
  demoLog = (pointed as RegExpExecArray)[1] as string;
  logText = readFileSync(demoLog, 'utf8');
}, 120_000);

const findCall = (calls: readonly CallJson[], id: string): CallJson => {
  const call = calls.find((c) => c.id === id);
  if (call === undefined) throw new Error(`no call ${id}`);
  return call;
};

describe('dsh log', () => {
  it('tells the demo’s session step by step: cards, who decided, approvals, hooks, timings, sub-calls under their program', async () => {
    const run = await runDsh(['log', demoLog], { cwd: home, home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out.includes('\u001b[')).toBe(false);
    // Without the sandbox the demo skips its step 7.
    // Core marks each step (step/start, step/end): the steps are counted, not guessed.
    expect(out).toMatch(/session demo · \d+ events · 15 steps · 19 calls · 7 sub-calls\n/);
    expect(out).toMatch(/Step 1 · \d\d:\d\d:\d\d\.\d+ · 2 calls · /);
    // Cards as the demo draws them (the tools' own presenters), each with how long it took.
    expect(out).toMatch(/✘ Edit src\/util\.js \[edit-unread\] denied FS_NOT_READ \(execute: tool-fs\/read-before-edit\) · \d/);
    expect(out).toContain('+console.log(greet(process.argv[2] ?? "world"));');
    // Who decided: a rule with its file and line, or the mode.
    expect(out).toContain('permissions decided allow by mode acceptEdits: reads inside the workspace need no approval');
    expect(out).toContain('permissions decided ask by ask rule "Bash(git push *)" (.claude/settings.json:10)');
    // The approval, asked and answered, then the guard that overruled it.
    expect(out).toMatch(
      /✘ bash \[bash-push\] denied GUARD_DENIED \(guard: demo\/no-force-push\)[^\n]*\n(?: {4}[^\n]*\n)*? {4}\? approval asked by permissions: bash \{"command":"git push --force origin main"\}\n {4}\? approval answered allowed-once by the approval provider after \d/,
    );
    // Hooks that ran, with exit code, decision and duration.
    expect(out).toMatch(/hook PreToolUse \.claude\/settings\.json#hooks\.PreToolUse\[0\]\.hooks\[0\]: exit 2, decided deny, \d/);
    // The context the hook added, after the step that changed src/.
    expect(out).toMatch(
      /context for the next model message:\n {2}· Note from \.claude\/hooks\/src-changed\.sh[^\n]*\(hooks-bridge, after edit-app\)/,
    );
    // The program's text, then its sub-calls, indented under it.
    const program = out.indexOf('const todos = await tools.grep');
    const sub = out.indexOf('    ✔ Grep TODO [code-summary:code:3] ok');
    expect(program).toBeGreaterThan(out.indexOf('✔ Run code [code-summary]'));
    expect(sub).toBeGreaterThan(program);
    expect(out).toMatch(/ {4}✘ Write config\/production\.json \[code-forbidden:code:0\] denied PRE_EXECUTE_DENIED/);
    expect(out).toContain(`dsh log ${demoLog} --call `);
  }, 60_000);

  it('--json: steps, calls with decisions, approvals, hooks and every event, sub-calls as children', async () => {
    const run = await runDsh(['log', demoLog, '--json'], { cwd: home, home });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as SessionJson;
    expect(report.droppedTornLine).toBe(false);
    expect(report.unknownEventTypes).toEqual([]);
    const calls = report.steps.flatMap((s) => s.calls);
    const push = findCall(calls, 'bash-push');
    expect(push.approvals.map((a) => a.type)).toEqual(['approval/request', 'approval/answer']);
    expect(push.approvals[1]?.data).toMatchObject({ answer: 'allowed-once', source: 'provider' });
    expect(push.decisions[0]).toMatchObject({ decision: 'ask', by: [{ kind: 'rule', rule: 'Bash(git push *)' }] });
    expect(push.hooks.map((h) => h.event)).toEqual(['PreToolUse']);
    expect(push.outcome).toMatchObject({ status: 'denied' });
    expect(typeof push.durationMs).toBe('number');
    const program = findCall(calls, 'code-summary');
    expect(program.children.map((c) => c.id)).toEqual([0, 1, 2, 3].map((n) => `code-summary:code:${n}`));
    // Every event of the log is in exactly one place.
    const lines = logText.trim().split('\n').length;
    const all = (c: CallJson): number => c.events.length + c.children.reduce((n, child) => n + all(child), 0);
    const marks = (s: SessionJson['steps'][number]): number => (s.start === null ? 0 : 1) + (s.end === null ? 0 : 1);
    const placed = calls.reduce((n, c) => n + all(c), 0) + report.steps.reduce((n, s) => n + s.notes.length + marks(s), 0);
    expect(placed).toBe(lines);
  });

  it('--call ID: every event of one call and of its sub-calls, in order', async () => {
    const events = logText
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string; call?: string });
    const mine = events.filter((e) => e.call === 'code-forbidden' || e.call?.startsWith('code-forbidden:'));
    const run = await runDsh(['log', demoLog, '--call', 'code-forbidden'], { cwd: home, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${mine.length} events`);
    const listed = [...run.stdout.matchAll(/^ {2}#\s*(\d+) /gm)].map((m) => Number(m[1]));
    expect(listed).toEqual(mine.map((e) => e.seq));
    expect(run.stdout).toMatch(/tool\/code-dispatch {2}program's call write \[code-forbidden:code:0\] settled denied/);
    expect(run.stdout).toMatch(
      /permissions\/decision {2}\[code-forbidden:code:0\] permissions decided deny by deny rule "Edit\(\.\/config\/\*\*\)"/,
    );

    const json = await runDsh(['log', demoLog, '--call', 'bash-push', '--json'], { cwd: home, home });
    const report = JSON.parse(json.stdout) as { call: CallJson; events: { seq: number }[] };
    expect(report.call.id).toBe('bash-push');
    expect(report.events.map((e) => e.seq)).toEqual(events.filter((e) => e.call === 'bash-push').map((e) => e.seq));

    const unknown = await runDsh(['log', demoLog, '--call', 'no-such-call'], { cwd: home, home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/CLI_USAGE: log: no call "no-such-call" in .*\(its calls: read-app, read-readme/);
  });

  it('reads a log whose last line was cut mid-write: says so, and shows the call it left without a result', async () => {
    const dir = scratchDir();
    const torn = join(dir, 'torn.jsonl');
    // The crash tore the result of the last call: its step has no step/end either.
    const text = logText.trimEnd();
    const result = text.lastIndexOf('"type":"tool/result","call":"fetch"');
    const line = text.lastIndexOf('\n', result) + 1;
    writeFileSync(torn, text.slice(0, line + 40));
    const run = await runDsh(['log', torn], { cwd: dir, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the last line was cut mid-write');
    expect(run.stdout).toContain('no result was logged for fetch');
    expect(run.stdout).toMatch(/\[fetch\] error TOOL_OUTCOME_UNKNOWN[^\n]*\n(?:[^\n]*\n)*? {4}the log ends before this call had a result/);
    expect(run.stdout).toMatch(
      /Step 15 [^\n]*\nthe log has no end for this step: it was still running, or the process stopped during it\n/,
    );
    const json = JSON.parse((await runDsh(['log', torn, '--json'], { cwd: dir, home })).stdout) as SessionJson;
    expect(json.droppedTornLine).toBe(true);
    expect(json.unknownOutcomes).toEqual(['fetch']);
    const cut = findCall(
      json.steps.flatMap((s) => s.calls),
      'fetch',
    );
    expect(cut.synthetic).toBe(true);
    // The made-up result carries the time the log was read, not when the call ended: no duration is claimed.
    expect(cut.durationMs).toBeNull();
  });

  it('shows event types it does not know raw, and a result it cannot read, without failing', async () => {
    const dir = scratchDir();
    const at = (n: number): string => `2026-01-01T00:00:0${n}.000Z`;
    const lines = [
      { seq: 1, at: at(0), session: 'future', type: 'future/setup', data: { flavour: 'new' } },
      {
        seq: 2,
        at: at(1),
        session: 'future',
        type: 'tool/call',
        call: 'c1',
        token: 't1',
        data: { name: 'teleport', args: { to: 'mars' } },
      },
      { seq: 3, at: at(2), session: 'future', type: 'teleport/charged', call: 'c1', token: 't1', data: { joules: 42 } },
      // An outcome in a shape this version does not know.
      {
        seq: 4,
        at: at(3),
        session: 'future',
        type: 'tool/result',
        call: 'c1',
        token: 't1',
        data: { name: 'teleport', outcome: { status: 'postponed' } },
      },
      {
        seq: 5,
        at: at(4),
        session: 'future',
        type: 'tool/call',
        call: 'c2',
        token: 't2',
        data: { name: 'read', args: { file_path: 'x' } },
      },
      // A known type with fields of another version: raw, not a crash.
      { seq: 6, at: at(5), session: 'future', type: 'approval/answer', call: 'c2', token: 't2', data: { verdict: 'sure' } },
      {
        seq: 7,
        at: at(6),
        session: 'future',
        type: 'tool/result',
        call: 'c2',
        token: 't2',
        data: { name: 'read', outcome: { status: 'denied', stage: 'approval', code: 'APPROVAL_REJECTED', reason: 'no' } },
      },
    ];
    const file = join(dir, 'future.jsonl');
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const run = await runDsh(['log', file], { cwd: dir, home });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('event types this version shows raw: future/setup, teleport/charged');
    expect(run.stdout).toContain('(unknown to this version) future/setup {"flavour":"new"}');
    expect(run.stdout).toContain('(unknown to this version) teleport/charged {"joules":42}');
    expect(run.stdout).toContain('a result this version cannot read: tool/result {"name":"teleport","outcome":{"status":"postponed"}}');
    expect(run.stdout).toContain('(unknown to this version) approval/answer {"verdict":"sure"}');
    expect(run.stdout).toMatch(/✘ [^\n]*\[c2\] denied APPROVAL_REJECTED \(approval\)/);
    const json = JSON.parse((await runDsh(['log', file, '--json'], { cwd: dir, home })).stdout) as SessionJson;
    expect(json.unknownEventTypes).toEqual(['future/setup', 'teleport/charged']);
  });

  it('points a Claude Code transcript given to dsh log at dsh replay', async () => {
    const dir = scratchDir();
    const transcript = join(dir, 'transcript.jsonl');
    writeFileSync(transcript, readFileSync(claudeTranscript, 'utf8'));
    const run = await runDsh(['log', transcript], { cwd: dir, home });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(`not a session event; this is a Claude Code transcript: dsh replay ${transcript} reads it`);
  });

  it('exits 4 naming the line for a log broken in the middle, a file that is missing, and a directory', async () => {
    const dir = scratchDir();
    const file = join(dir, 'broken.jsonl');
    const [first = '', ...rest] = logText.trim().split('\n');
    writeFileSync(file, `${first}\n{"seq":2,"at":\n${rest.join('\n')}\n`);
    const broken = await runDsh(['log', file], { cwd: dir, home });
    expect(broken.code).toBe(4);
    expect(broken.stderr).toMatch(/TRANSCRIPT_INVALID: .*broken\.jsonl:2: not a JSON line/);
    const missing = await runDsh(['log', 'nope.jsonl'], { cwd: dir, home });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/TRANSCRIPT_INVALID: \/.*\/nope\.jsonl: cannot read the session log: ENOENT/);
    const directory = await runDsh(['log', '.'], { cwd: dir, home });
    expect(directory.code).toBe(4);
    expect(directory.stderr).toContain(`TRANSCRIPT_INVALID: ${dir}: cannot read the session log: EISDIR`);
    const usage = await runDsh(['log'], { cwd: dir, home });
    expect(usage.code).toBe(2);
  });
});
