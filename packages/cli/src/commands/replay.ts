import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PermissionPrompt } from '@deepseek-ai/dsh-permissions';
import { loadConfig } from '../config.js';
import { announceConfigProblems } from '../config-problems.js';
import { ExitCode } from '../exit-codes.js';
import { buildHost } from '../host-factory.js';
import type { CliIo } from '../io.js';
import { checkExpectations, readExpectations } from '../replay/expectations.js';
import { type AdviceRecorder, adviseOnPolicy, type PolicyAdvice, recordAdvice } from '../replay/policy-advice.js';
import { replaySteps } from '../replay/replay-session.js';
import { renderAdvice, renderReplay, summarise } from '../replay/report.js';
import { type ReplayRow, replayRejection } from '../replay/rows.js';
import { readTranscript } from '../replay/transcript.js';

/** Options of `dsh replay`. */
export interface ReplayOptions {
  readonly file: string;
  /** Run the bodies in a scratch copy of the workspace. */
  readonly execute: boolean;
  readonly json: boolean;
  readonly config?: string;
  readonly workspace?: string;
  /** How a call left at `ask` is answered. */
  readonly approval?: 'allow' | 'deny';
  /** A file of expectations; exit 1 when one fails. */
  readonly expect?: string;
  /** Any configuration problem (a settings file skipped, a rule or hook left out) is fatal: `CONFIG_INVALID`, nothing runs. */
  readonly strict?: boolean;
}

/**
 * `dsh replay`: runs a recorded transcript's tool calls through the
 * configured policies, as a dry run or (`--execute`) in a scratch copy of
 * the workspace, and reports each call's decision.
 */
export async function runReplay(io: CliIo, options: ReplayOptions): Promise<ExitCode> {
  const loaded = loadConfig(io.cwd, options.config);
  const expectations = options.expect === undefined ? undefined : readExpectations(resolve(io.cwd, options.expect));
  const transcript = await readTranscript(resolve(io.cwd, options.file));
  const original = options.workspace === undefined ? loaded.workspace : resolve(io.cwd, options.workspace);
  let workspace = original;
  if (options.execute) {
    workspace = join(mkdtempSync(join(tmpdir(), 'dsh-replay-')), 'workspace');
    cpSync(original, workspace, { recursive: true, verbatimSymlinks: true });
  }
  const answer = options.approval ?? loaded.config.approval ?? 'allow';
  const approvals = new Map<string, 'allowed' | 'rejected'>();
  let recorder: AdviceRecorder | undefined;
  const prompt: PermissionPrompt = (request) => {
    approvals.set(request.call.id, answer === 'allow' ? 'allowed' : 'rejected');
    recorder?.noteAsked(request);
    return answer === 'allow' ? 'allowed-once' : { answer: 'rejected', message: replayRejection };
  };
  const {
    host,
    permissions: perms,
    shutdown,
    configProblems,
  } = await buildHost({
    workspace,
    config: loaded.config,
    configSource: loaded.file ?? 'defaults',
    session: `replay-${Date.now()}`,
    prompt,
    // Replaying must never leave grants behind in the real project.
    overrides: { permissions: { ...asObject(loaded.config.plugins?.permissions), grantsFile: false, remember: ['session'] } },
    strict: options.strict === true,
  });
  announceConfigProblems(io, configProblems);
  const rewriteFrom = [transcript.cwd, original].filter((p): p is string => p !== undefined);
  recorder = recordAdvice(host);
  const hostIds = new Map<ReplayRow, string>();
  let rows: ReplayRow[];
  let advice: PolicyAdvice | undefined;
  try {
    rows = await replaySteps(host, transcript, { execute: options.execute, rewriteFrom, workspace, approvals, hostIds });
    recorder.stop();
    // Rules suggested against a policy with a file left out would be suggested against the wrong policy.
    advice =
      perms === undefined || configProblems.length > 0
        ? undefined
        : await adviseOnPolicy(perms, rows, recorder, (row) => hostIds.get(row), workspace);
  } finally {
    await shutdown();
  }
  const summary = summarise(rows);
  const checked = expectations === undefined ? undefined : checkExpectations(expectations, rows);
  const failed = checked?.some((c) => !c.ok) ?? false;
  if (options.json) {
    const report = {
      transcript: {
        file: resolve(io.cwd, options.file),
        format: transcript.format,
        cwd: transcript.cwd ?? null,
        skipped: transcript.skipped,
      },
      mode: options.execute ? 'execute' : 'dry-run',
      workspace,
      approval: answer,
      rows,
      summary,
      ...(advice === undefined ? {} : { policy: advice }),
      ...(checked === undefined ? {} : { expectations: checked }),
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const mode = options.execute ? `executed in a scratch copy: ${workspace}` : 'dry run: no tool body ran';
    io.stdout.write(
      `${io.style.dim(`${transcript.format === 'claude' ? 'Claude Code transcript' : 'dsh session log'} · ${mode} · approvals answered "${answer}"`)}\n`,
    );
    for (const { line, reason } of transcript.skipped)
      io.stdout.write(`${io.style.yellow(`${options.file}:${line}: ${reason}: left out`)}\n`);
    io.stdout.write(renderReplay(io.style, rows, summary, checked, { wide: !io.isTTY, workspace }));
    if (advice !== undefined) io.stdout.write(renderAdvice(io.style, advice, rows));
    else if (perms !== undefined && configProblems.length > 0)
      io.stdout.write(
        `\n${io.style.yellow('No rule suggestions: the policy replayed is not the one configured (configuration problems above). Fix them first: dsh config check.')}\n`,
      );
  }
  return failed ? ExitCode.EXPECTATION_FAILED : ExitCode.OK;
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
