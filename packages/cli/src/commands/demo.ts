import { readFileSync } from 'node:fs';
import { type CallResult, definePlugin, jsonlSink, type Outcome, type StepCall } from '@deepseek-ai/dsh-core';
import type { PermissionPrompt } from '@deepseek-ai/dsh-permissions';
import { bwrapSandbox } from '@deepseek-ai/dsh-tool-bash';
import { ExitCode } from '../exit-codes.js';
import { buildHost } from '../host-factory.js';
import { dshCommand } from '../invoked-as.js';
import type { CliIo } from '../io.js';
import { codeOf, indent } from '../render/cards.js';
import { TerminalUi } from '../render/terminal-ui.js';
import { addDemoSkill, notesServerPath, scriptedReviewer, startDemoPage } from './demo-extras.js';
import { demoPrograms } from './demo-programs.js';
import { createDemoWorkspace, type DemoWorkspace } from './demo-workspace.js';

/** Options of `dsh demo`. */
export interface DemoOptions {
  /** False with `--no-sandbox`: run commands without bubblewrap even where it works. */
  readonly sandbox: boolean;
}

/** What one call of the demo must end as; a mismatch makes the demo exit 1. */
interface Expect {
  readonly status: Outcome['status'];
  readonly code?: string;
}

/**
 * `dsh demo`: a scripted session in a fresh temporary workspace with every
 * plugin — file tools with read-before-edit and confinement, bash with live
 * output, a timeout and the sandbox, a Claude Code hook, permission rules
 * with an approval and a guard that overrules it, Code Mode — rendered as
 * cards, ending with the JSONL session log's path. Offline, a few seconds.
 * It checks every outcome against what it should be and exits 1 when one
 * differs, so CI can run it.
 */
export async function runDemo(io: CliIo, options: DemoOptions): Promise<ExitCode> {
  const ws = createDemoWorkspace();
  addDemoSkill(ws.root);
  const page = await startDemoPage();
  const ui = new TerminalUi(io.stdout, io.style, { spinner: io.isTTY, root: ws.root });
  const s = io.style;
  const sandbox = options.sandbox ? await probeSandbox(ws) : { ok: false as const, reason: 'turned off with --no-sandbox' };

  // Stands in for a person at the terminal: says yes, once, to every question, and says so.
  const person: PermissionPrompt = (request) => {
    const args = JSON.stringify(request.args);
    const shown = args.length > 100 ? `${args.slice(0, 100)}…` : args;
    const who = request.call.agent === undefined ? '' : `subagent ${request.call.agent.type}: `;
    ui.line(`  ${s.bold('?')} ${who}approve ${request.tool.name} ${shown} ${s.dim(`— ${request.reason ?? 'asked'}`)}`);
    ui.line(`  ${s.dim('→ yes, once')}`);
    return 'allowed-once';
  };
  // A guard no approval can overrule: never force-push.
  const demoGuards = definePlugin({
    name: 'demo-guards',
    version: '0.0.0',
    register(host) {
      host.guards.register({
        id: 'demo/no-force-push',
        check: ({ call, args }) =>
          call.name === 'bash' && typeof args.command === 'string' && /git push\b.*(--force|-f\b)/.test(args.command)
            ? { deny: 'force-pushing is never allowed here, whoever approved it' }
            : 'abstain',
      });
    },
  });

  const sink = jsonlSink(ws.logPath);
  const { host, mcp, shutdown } = await buildHost({
    workspace: ws.root,
    config: {},
    configSource: 'dsh demo',
    session: 'demo',
    sink,
    ui,
    prompt: person,
    model: scriptedReviewer(),
    extraPlugins: [demoGuards],
    overrides: {
      toolBash: {
        cwd: ws.root,
        defaultTimeoutMs: 10_000,
        sandbox: sandbox.ok ? { provider: 'bwrap' } : { provider: 'none' },
        env: { set: { HOME: ws.home } },
      },
      hooksBridge: { projectDir: ws.root, homeDir: ws.home, userSettings: false },
      // Programs are allowed to run; each of their tool calls is still decided on its own.
      // Programs, the todo list, skills and subagents run without asking; each of their calls is still decided on its own.
      // One MCP tool is allowed, a destructive one denied; web_fetch is left to ask.
      permissions: {
        projectDir: ws.root,
        cwd: ws.root,
        homeDir: ws.home,
        grantsFile: false,
        rules: { allow: ['run_code', 'TodoWrite', 'Skill', 'Agent', 'mcp__notes__list_notes'], deny: ['mcp__notes__delete_notes'] },
      },
      timeoutPolicy: { defaultMs: 20_000 },
      toolSkill: { projectDir: ws.root, homeDir: ws.home },
      toolSubagent: {
        projectDir: ws.root,
        homeDir: ws.home,
        agents: [
          {
            name: 'reviewer',
            description: 'Reviews the project and tidies it up.',
            tools: ['Read', 'Bash'],
            prompt: 'You review the project and report what you found.',
          },
        ],
      },
      mcp: { cwd: ws.root, configFiles: [], servers: { notes: { command: process.execPath, args: [notesServerPath] } } },
      // The demo's own page server on 127.0.0.1 is admitted past the address check; every other private address stays refused.
      toolWeb: { allow: ['127.0.0.1'], ports: [page.port] },
    },
  });

  const failures: string[] = [];
  const step = async (title: string, calls: StepCall[], expected: Expect[]): Promise<readonly CallResult[]> => {
    if (title !== '') ui.line(`\n${s.bold(title)}`);
    const { results, context } = await host.runStep({ calls });
    if (context !== undefined) {
      ui.line(s.dim('context for the next model message:'));
      for (const part of context.parts) ui.line(`  ${s.dim('·')} ${part.text}`);
    }
    results.forEach((r, i) => {
      const want = expected[i];
      if (want === undefined) return;
      const got = codeOf(r.outcome);
      if (r.outcome.status !== want.status || (want.code !== undefined && got !== want.code)) {
        failures.push(
          `${r.id}: expected ${want.status}${want.code ? ` ${want.code}` : ''}, got ${r.outcome.status}${got ? ` ${got}` : ''}`,
        );
      }
    });
    return results;
  };

  io.stdout.write(`${s.bold('dsh demo')} — a scripted session through the whole pipeline\n`);
  io.stdout.write(`${s.dim('workspace:')} ${ws.root}\n`);
  io.stdout.write(
    `${s.dim('plugins:')}   ${host
      .plugins()
      .map((p) => p.name)
      .join(', ')}\n`,
  );
  io.stdout.write(
    sandbox.ok
      ? `${s.dim('sandbox:')}   bubblewrap — commands see a read-only system and a writable workspace\n`
      : `${s.dim('sandbox:')}   ${s.yellow('none')} — bubblewrap is not available (${sandbox.reason}); commands run unsandboxed\n`,
  );

  await step(
    '1. Read two files (in parallel), allowed by the permission mode',
    [
      { id: 'read-app', name: 'read', args: { file_path: 'src/app.js' } },
      { id: 'read-readme', name: 'read', args: { file_path: 'README.md' } },
    ],
    [{ status: 'ok' }, { status: 'ok' }],
  );
  await step(
    '2. Edit the file just read: the card shows the diff, and a PostToolUse hook reminds the model to run the tests',
    [
      {
        id: 'edit-app',
        name: 'edit',
        args: { file_path: 'src/app.js', old_string: "greet('world')", new_string: 'greet(process.argv[2] ?? "world")' },
      },
    ],
    [{ status: 'ok' }],
  );
  await step(
    '3. Edit a file never read: vetoed by read-before-edit; a symlink out of the workspace: refused, even when approved',
    [
      { id: 'edit-unread', name: 'edit', args: { file_path: 'src/util.js', old_string: 'Hello', new_string: 'Hi' } },
      { id: 'read-escape', name: 'read', args: { file_path: 'src/secret-link.txt' } },
    ],
    [
      { status: 'denied', code: 'FS_NOT_READ' },
      { status: 'error', code: 'FS_SYMLINK_ESCAPE' },
    ],
  );
  await step(
    '4. A command with live output',
    [
      {
        id: 'bash-ticks',
        name: 'bash',
        args: { command: 'for i in 1 2 3; do echo tick $i; sleep 0.3; done', description: 'count to three' },
      },
    ],
    [{ status: 'ok' }],
  );
  await step(
    '5. A command killed by its 500 ms timeout (the whole process tree)',
    [{ id: 'bash-sleep', name: 'bash', args: { command: 'sleep 30', timeout: 500 } }],
    [{ status: 'error', code: 'TOOL_TIMEOUT' }],
  );
  await step(
    '6. A PreToolUse hook from .claude/settings.json blocks rm -rf',
    [{ id: 'bash-rm', name: 'bash', args: { command: 'rm -rf src' } }],
    [{ status: 'denied', code: 'PRE_EXECUTE_DENIED' }],
  );
  if (sandbox.ok) {
    const results = await step(
      '7. A write outside the workspace: asked, approved, and stopped by the sandbox',
      [{ id: 'bash-etc', name: 'bash', args: { command: 'echo x > /etc/dsh-demo' } }],
      [{ status: 'ok' }],
    );
    const output = results[0]?.outcome.status === 'ok' ? (results[0].outcome.output as { exitCode?: unknown }) : undefined;
    if (output?.exitCode === 0) failures.push('bash-etc: the write to /etc/dsh-demo succeeded inside the sandbox');
  } else {
    ui.line(`\n${s.bold('7. A write outside the workspace')}`);
    ui.line(`${s.yellow('skipped:')} without bubblewrap nothing would stop it, so the demo does not try`);
  }
  await step(
    '8. Approved by the user, then denied by a guard nothing can overrule',
    [{ id: 'bash-push', name: 'bash', args: { command: 'git push --force origin main' } }],
    [{ status: 'denied', code: 'GUARD_DENIED' }],
  );
  const summary = await step(
    '9. Code Mode: a program reads three files, greps them and returns a summary',
    [{ id: 'code-summary', name: 'run_code', args: { code: demoPrograms.summary } }],
    [{ status: 'ok' }],
  );
  showProgram(summary[0]);
  const caught = await step(
    '10. Code Mode: a forbidden write inside a program is denied, and the program catches it',
    [{ id: 'code-forbidden', name: 'run_code', args: { code: demoPrograms.forbiddenWrite } }],
    [{ status: 'ok' }],
  );
  showProgram(caught[0]);
  const caughtOutput = caught[0]?.outcome.status === 'ok' ? JSON.stringify(caught[0].outcome.output) : '';
  if (!caughtOutput.includes('PRE_EXECUTE_DENIED')) failures.push('code-forbidden: the program did not report the denial it caught');

  await step(
    '11. The model keeps a task list with todo_write (Claude Code’s TodoWrite): the card shows it',
    [
      {
        id: 'todo',
        name: 'todo_write',
        args: {
          todos: [
            { content: 'Take the name from the command line', status: 'completed', activeForm: 'Taking the name' },
            { content: 'Write the release notes', status: 'in_progress', activeForm: 'Writing the release notes' },
            { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
          ],
        },
      },
    ],
    [{ status: 'ok' }],
  );
  await step(
    '12. A skill from .claude/skills is loaded; its bundled file reads, and stays read-only',
    [{ id: 'skill-load', name: 'skill', args: { name: 'release-notes' } }],
    [{ status: 'ok' }],
  );
  await step(
    '',
    [
      { id: 'skill-read', name: 'read', args: { file_path: '.claude/skills/release-notes/template.md' } },
      { id: 'skill-write', name: 'write', args: { file_path: '.claude/skills/release-notes/template.md', content: 'changed' } },
    ],
    [{ status: 'ok' }, { status: 'error', code: 'FS_READ_ONLY_ROOT' }],
  );
  await mcp?.ready();
  await step(
    '13. An MCP server over stdio (a notes list): one tool allowed by a rule, a destructive one denied by another',
    [
      { id: 'mcp-list', name: 'mcp__notes__list_notes', args: {} },
      { id: 'mcp-delete', name: 'mcp__notes__delete_notes', args: {} },
    ],
    [{ status: 'ok' }, { status: 'denied', code: 'PRE_EXECUTE_DENIED' }],
  );
  await step(
    '14. A subagent (task): its calls go through the same hooks and rules — the hook blocks its rm -rf too',
    [
      {
        id: 'task',
        name: 'task',
        args: { description: 'review the project', prompt: 'Read the README and tidy up src.', subagent_type: 'reviewer' },
      },
    ],
    [{ status: 'ok' }],
  );
  const nested = host.events.list().filter((e) => e.type === 'tool/result' && e.call?.startsWith('task:agent:') === true);
  const nestedStatus = nested.map((e) => (e.data as { outcome: Outcome }).outcome.status);
  if (nestedStatus.join(',') !== 'ok,denied') failures.push(`task: the subagent's calls ended ${nestedStatus.join(', ')}, not ok, denied`);
  await step(
    '15. web_fetch of a page (from a server the demo started on 127.0.0.1): asked, approved, its article as Markdown',
    [{ id: 'fetch', name: 'web_fetch', args: { url: page.url } }],
    [{ status: 'ok' }],
  );

  ui.close();
  await shutdown();
  await page.close();
  function showProgram(result: CallResult | undefined): void {
    if (result?.outcome.status !== 'ok') return;
    const output = result.outcome.output as { result?: unknown; logs?: unknown };
    if (typeof output.logs === 'string' && output.logs !== '') ui.line(`${s.dim('  console:')} ${output.logs.trimEnd()}`);
    ui.line(`${s.dim('  returned:')} ${JSON.stringify(output.result)}`);
  }
  const events = readFileSync(ws.logPath, 'utf8').split('\n').filter(Boolean).length;
  io.stdout.write(`\n${s.bold('Session log')} (JSONL, ${events} events): ${ws.logPath}\n`);
  io.stdout.write(`${s.dim('Read it as the story of the session:')} ${dshCommand(io.env)} log ${ws.logPath}\n`);
  if (failures.length > 0) {
    io.stderr.write(`dsh demo: ${failures.length} step(s) did not end as expected:\n${indent(failures.join('\n'), '  ')}\n`);
    return ExitCode.EXPECTATION_FAILED;
  }
  return ExitCode.OK;
}

async function probeSandbox(ws: DemoWorkspace): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    const probe = await bwrapSandbox().probe({
      writableRoots: [ws.root],
      readOnlyPaths: [],
      extraReadablePaths: [],
      network: false,
      cwd: ws.root,
    });
    return probe.ok ? { ok: true } : { ok: false, reason: probe.reason ?? 'the probe failed' };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
