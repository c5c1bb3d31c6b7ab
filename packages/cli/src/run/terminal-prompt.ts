import { createInterface } from 'node:readline';
import type { PermissionPrompt, PermissionPromptReply, PermissionPromptRequest } from '@deepseek-ai/dsh-permissions';
import type { Style } from '../render/style.js';
import type { TerminalUi } from '../render/terminal-ui.js';

/** What the prompt reads from and writes to. */
export interface PromptTerminal {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly ui: TerminalUi;
  readonly style: Style;
  /** Called when Ctrl-C is pressed while a question is open (readline takes the key from the process then). */
  readonly onInterrupt: () => void;
}

/** The message the model reads when the user says no. */
export const rejectedByUser = 'the user said no at the terminal';

/** The message the model reads when nobody can be asked. */
export const noTerminalRefusal =
  'approval needed, but dsh run has no terminal to ask (stdin is not a TTY): refused. Add an allow rule to .claude/settings.json, or run dsh run in a terminal';

/**
 * Asks at the terminal, one question at a time (parallel calls wait their
 * turn): `y` allows once, `s` allows for the session as the suggested rule
 * (when the permissions plugin offers one), anything else — or an empty
 * line — says no. A subagent's call is labelled with the subagent.
 */
export function terminalPrompt(terminal: PromptTerminal): PermissionPrompt {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const asked = queue.then(() => ask(terminal, request));
    queue = asked.catch(() => undefined);
    return asked;
  };
}

/** A prompt for when there is no terminal: every ask is refused with a reason the model and the card show. */
export function refusingPrompt(ui: TerminalUi, style: Style): PermissionPrompt {
  return (request) => {
    ui.line(`  ${style.yellow('✘')} ${request.tool.name} needs approval; no terminal to ask: refused`);
    return { answer: 'rejected', message: noTerminalRefusal };
  };
}

async function ask(terminal: PromptTerminal, request: PermissionPromptRequest): Promise<PermissionPromptReply> {
  if (request.signal.aborted) return 'cancelled';
  const { ui, style: s } = terminal;
  const release = ui.hold();
  // `remember` is absent when the permissions plugin is off and the host asks directly.
  const remember = (request as Partial<PermissionPromptRequest>).remember;
  const session = remember?.scopes.includes('session') === true ? remember.suggestions[0] : undefined;
  const who = request.call.agent === undefined ? 'the agent ' : `subagent ${request.call.agent.type} (${request.call.agent.id}) `;
  const args = JSON.stringify(request.args);
  ui.line(`  ${s.bold('?')} ${who}wants to run ${s.bold(request.tool.name)} ${args.length > 300 ? `${args.slice(0, 300)}…` : args}`);
  if (request.reason !== undefined) ui.line(`    ${s.dim(request.reason)}`);
  const choices = ['[y] yes, once', ...(session === undefined ? [] : [`[s] yes, for this session: ${session.rules.join(', ')}`]), '[n] no'];
  ui.line(`    ${choices.join('   ')}`);
  const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: true });
  try {
    const answer = await new Promise<string | undefined>((done) => {
      const onAbort = (): void => done(undefined);
      request.signal.addEventListener('abort', onAbort, { once: true });
      rl.on('SIGINT', () => {
        terminal.onInterrupt();
        done(undefined);
      });
      rl.on('close', () => done(undefined));
      rl.question('  > ', (line) => {
        request.signal.removeEventListener('abort', onAbort);
        done(line.trim().toLowerCase());
      });
    });
    if (answer === undefined) {
      ui.line(`    ${s.dim('→ cancelled')}`);
      return 'cancelled';
    }
    if (answer === 'y' || answer === 'yes') {
      ui.line(`    ${s.dim('→ yes, once')}`);
      return 'allowed-once';
    }
    if ((answer === 's' || answer === 'session') && session !== undefined) {
      ui.line(`    ${s.dim(`→ yes, for this session (${session.rules.join(', ')})`)}`);
      return { answer: 'allowed-session', rules: session.rules };
    }
    ui.line(`    ${s.dim('→ no')}`);
    return { answer: 'rejected', message: rejectedByUser };
  } finally {
    rl.close();
    release();
  }
}
