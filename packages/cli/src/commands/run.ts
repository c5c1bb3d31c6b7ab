import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { type AgentResult, type Model, runAgent } from '@deepseek-ai/dsh-agent';
import { connectModel, type Provider, providers } from '@deepseek-ai/dsh-agent/connect';
import { DshError, jsonlSink, messageOf } from '@deepseek-ai/dsh-core';
import { loadConfig } from '../config.js';
import { announceConfigProblems } from '../config-problems.js';
import { CliError, CliErrorCode } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { buildHost } from '../host-factory.js';
import { dshCommand } from '../invoked-as.js';
import type { CliIo } from '../io.js';
import { TerminalUi } from '../render/terminal-ui.js';
import { terminalWidth } from '../render/terminal-width.js';
import { terminalAuthorization, terminalElicitation } from '../run/mcp-prompts.js';
import { isLocalEndpoint, unreachableBecause } from '../run/model-endpoint.js';
import { systemPrompt } from '../run/system-prompt.js';
import { logTask } from '../run/task-event.js';
import { refusingPrompt, terminalPrompt } from '../run/terminal-prompt.js';
import { inboxPrompt, openRunInbox } from './inbox.js';

/** The providers `dsh run --provider` accepts (`deepseek`, the default, is Chat Completions on DeepSeek's API). */
export const runProviders: readonly Provider[] = ['deepseek', 'openai', 'openai-responses', 'anthropic', 'gemini'];

/** Options of `dsh run`. */
export interface RunOptions {
  readonly task: string;
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly config?: string;
  /** The most model turns: 50 by default. */
  readonly maxTurns?: number;
  /** Where the session log goes: `~/.dsh/sessions/<time>-<id>.jsonl` by default. */
  readonly log?: string;
  /** Any configuration problem (a settings file skipped, a rule or hook left out) is fatal: `CONFIG_INVALID`, nothing runs. */
  readonly strict?: boolean;
  /** Open an approval inbox for this run: approvals wait in its page as well as at the terminal; the first answer wins. */
  readonly inbox?: boolean;
  /** A model to use instead of connecting to one (tests of the library). */
  readonly modelOverride?: Model;
}

/**
 * `dsh run "task"`: a coding agent in the current directory with the
 * configured plugins. The model streams its answer to the terminal, calls
 * are drawn as cards with live output, approvals are asked at the terminal
 * (refused when stdin is not one), the API key comes from the environment,
 * and the session log's path is printed at the start and the end. Ctrl-C
 * stops the agent with every started call answered; twice exits at once.
 */
export async function runRun(io: CliIo, options: RunOptions): Promise<ExitCode> {
  const provider = checkProvider(options.provider);
  const loaded = loadConfig(io.cwd, options.config);
  const model = options.modelOverride ?? (await connect(io, provider, options));
  const logPath = options.log === undefined ? defaultLogPath(io.env) : resolve(io.cwd, options.log);
  try {
    mkdirSync(dirname(logPath), { recursive: true });
  } catch (error) {
    throw new CliError(CliErrorCode.USAGE, `run: cannot create the session log's directory ${dirname(logPath)}: ${messageOf(error)}`);
  }
  const s = io.style;
  const ui = new TerminalUi(io.stdout, s, { spinner: io.isTTY, root: loaded.workspace, width: terminalWidth(io.isTTY) });
  const controller = new AbortController();
  let interrupts = 0;
  const interrupt = (): void => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    ui.line(s.yellow('Stopping: every started call gets its result (Ctrl-C again to quit at once)'));
    controller.abort(new DshError('ABORTED', 'stopped with Ctrl-C'));
  };
  const terminal = io.stdin?.isTTY === true ? io.stdin : undefined;
  const atTerminal = terminal === undefined ? undefined : terminalPrompt({ input: terminal, ui, style: s, onInterrupt: interrupt });
  const inbox = options.inbox === true ? await openRunInbox() : undefined;
  const prompt =
    inbox !== undefined
      ? inboxPrompt(inbox, atTerminal, () => ui.line(`    ${s.dim('→ answered in the inbox')}`))
      : (atTerminal ?? refusingPrompt(ui, s));
  const built = await buildHost({
    workspace: loaded.workspace,
    config: loaded.config,
    configSource: loaded.file ?? 'defaults',
    session: basename(logPath, '.jsonl'),
    sink: jsonlSink(logPath),
    ui,
    prompt,
    model,
    strict: options.strict === true,
    // MCP servers' questions (elicitation, OAuth) are asked at the terminal too.
    overrides: {
      mcp: {
        elicit: terminalElicitation({ input: terminal, output: process.stdout, ui, style: s }),
        authorize: terminalAuthorization({ input: terminal, output: process.stdout, ui, style: s, onInterrupt: interrupt }),
      },
    },
  }).catch(async (error: unknown) => {
    // The inbox's server would keep the process alive after the error is reported.
    await inbox?.close();
    throw error;
  });
  inbox?.attach(built.host, { label: options.task.slice(0, 80) });
  announceConfigProblems(io, built.configProblems);
  process.on('SIGINT', interrupt);
  let result: AgentResult;
  try {
    await built.mcp?.ready();
    const name = options.model ?? providers[provider].model ?? '';
    io.stdout.write(`${s.bold('dsh run')} ${s.dim(`— ${provider}${name === '' ? '' : ` ${name}`}, in ${loaded.workspace}`)}\n`);
    io.stdout.write(
      `${s.dim('plugins:')} ${built.host
        .plugins()
        .map((p) => p.name)
        .join(', ')}\n`,
    );
    for (const server of built.mcp?.servers() ?? []) {
      if (server.state !== 'ready')
        ui.line(s.yellow(`mcp: ${server.name} is ${server.state}${server.lastError ? `: ${server.lastError.message}` : ''}`));
    }
    if (inbox !== undefined) io.stdout.write(`${s.dim('inbox:')} ${inbox.url}\n`);
    else if (terminal === undefined) ui.line(s.yellow('stdin is not a terminal: calls that need approval will be refused'));
    io.stdout.write(`${s.dim('session log:')} ${logPath}\n\n`);
    // The log says what was asked, so dsh log can tell the whole story.
    await logTask(built.host, {
      task: options.task,
      provider,
      ...(name === '' ? {} : { model: name }),
      workspace: loaded.workspace,
    });
    result = await runAgent({
      host: built.host,
      model,
      system: systemPrompt(loaded.workspace, built.skills?.summary()),
      messages: [{ role: 'user', text: options.task }],
      maxTurns: options.maxTurns ?? 50,
      signal: controller.signal,
      onText: (delta) => ui.text(delta),
    });
  } finally {
    process.off('SIGINT', interrupt);
    ui.close();
    await built.shutdown();
    await inbox?.close();
  }
  ui.line('');
  const usage = result.usage === undefined ? '' : ` · ${usageText(result.usage)}`;
  const turns = `${result.turns} turn${result.turns === 1 ? '' : 's'}`;
  // The SDK's "Connection error." names neither the server nor the cause: say both.
  const endpoint = options.baseUrl ?? providers[provider].baseURL;
  let errorMessage = result.error?.message;
  if (errorMessage !== undefined && /connection error/i.test(errorMessage) && endpoint !== undefined) {
    const because = await unreachableBecause(endpoint);
    errorMessage = `cannot reach ${endpoint}${because === undefined ? '' : `: ${because}`}`;
  }
  if (result.stop === 'end') io.stdout.write(`${s.green('✔')} done · ${turns}${usage}\n`);
  else
    io.stdout.write(
      `${s.red('✘')} stopped: ${result.stop}${result.error ? ` (${result.error.code}: ${errorMessage})` : ''} · ${turns}${usage}\n`,
    );
  io.stdout.write(`${s.dim('Session log:')} ${logPath}\n${s.dim('Read it:')} ${dshCommand(io.env)} log ${logPath}\n`);
  return result.stop === 'end' ? ExitCode.OK : ExitCode.AGENT_STOPPED;
}

function checkProvider(given: string | undefined): Provider {
  if (given === undefined) return 'deepseek';
  if ((runProviders as readonly string[]).includes(given)) return given as Provider;
  throw new CliError(CliErrorCode.USAGE, `run: --provider must be one of ${runProviders.join(', ')}, not "${given}"`);
}

async function connect(io: CliIo, provider: Provider, options: RunOptions): Promise<Model> {
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl))
    throw new CliError(CliErrorCode.USAGE, `run: --base-url must be a URL (http://127.0.0.1:8000/v1), not "${options.baseUrl}"`);
  // A server on this machine (llama.cpp, vLLM, Ollama) takes no key: do not demand one.
  const keyless =
    options.baseUrl !== undefined &&
    isLocalEndpoint(options.baseUrl) &&
    !providers[provider].keyEnv.some((name) => (io.env[name] ?? '') !== '');
  try {
    return await connectModel({
      provider,
      env: { ...io.env },
      ...(keyless ? { apiKey: 'no-key-for-a-local-server' } : {}),
      stream: true,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
    });
  } catch (error) {
    const code = DshError.isInstance(error) ? `${error.code}: ` : '';
    throw new CliError(CliErrorCode.MODEL_UNAVAILABLE, `run: ${code}${messageOf(error).replace(/^connectModel: /, '')}`, { cause: error });
  }
}

/** `~/.dsh/sessions/<UTC time>-<random>.jsonl`: one file per run, sortable by time. */
function defaultLogPath(env: NodeJS.ProcessEnv): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
  return join(env.HOME ?? homedir(), '.dsh', 'sessions', `${stamp}-${randomBytes(3).toString('hex')}.jsonl`);
}

function usageText(usage: NonNullable<AgentResult['usage']>): string {
  const u = usage as { inputTokens?: number; outputTokens?: number };
  return `${u.inputTokens ?? 0} tokens in, ${u.outputTokens ?? 0} out`;
}
