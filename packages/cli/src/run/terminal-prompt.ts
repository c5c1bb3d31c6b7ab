import type { PermissionPrompt, PermissionPromptReply, PermissionPromptRequest } from '@deepseek-ai/dsh-permissions';
import type { Style } from '../render/style.js';
import type { TerminalUi } from '../render/terminal-ui.js';
import { visibleWidth } from '../render/wrap.js';
import { approvalSubject } from './approval-subject.js';
import { chooseByKey, type KeyChoice, type KeyInput } from './key-choice.js';

/** What the prompt reads from and writes to. */
export interface PromptTerminal {
  /** The keyboard: one key answers when it is a TTY (raw mode), a line otherwise. */
  readonly input: KeyInput;
  readonly ui: TerminalUi;
  readonly style: Style;
  /** Called when Ctrl-C is pressed while a question is open (raw mode takes the key from the process then). */
  readonly onInterrupt: () => void;
}

/** The message the model reads when the user says no. */
export const rejectedByUser = 'the user said no at the terminal';

/** The message the model reads when nobody can be asked. */
export const noTerminalRefusal =
  'approval needed, but dsh run has no terminal to ask (stdin is not a TTY): refused. Add an allow rule to .claude/settings.json, or run dsh run in a terminal';

/**
 * Asks at the terminal, one question at a time (parallel calls wait their
 * turn). The question names what the call would do (the command, the file),
 * then one key answers, echoed once on the prompt's line: `y` allows once,
 * `s` for the session and `a` always in this project as the suggested rule
 * (when the permissions plugin offers them), `n` or Enter says no, Ctrl-C
 * says no and stops the run. A subagent's call is labelled with the subagent.
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

type Reply = PermissionPromptReply | 'cancelled';

async function ask(terminal: PromptTerminal, request: PermissionPromptRequest): Promise<Reply> {
  if (request.signal.aborted) return 'cancelled';
  const { ui, style: s } = terminal;
  // `remember` is absent when the permissions plugin is off and the host asks directly.
  const remember = (request as Partial<PermissionPromptRequest>).remember;
  const suggested = remember?.suggestions[0];
  const offers = (scope: 'session' | 'project'): boolean => suggested !== undefined && remember?.scopes.includes(scope) === true;
  const who = request.call.agent === undefined ? 'the agent' : `subagent ${request.call.agent.type} (${request.call.agent.id})`;
  const { subject, detail } = approvalSubject(request.tool.name, request.args, ui.pendingCard(request.call));
  const no: KeyChoice<Reply> = { keys: ['n', 'no'], value: { answer: 'rejected', message: rejectedByUser }, echo: 'no' };
  const choices: KeyChoice<Reply>[] = [{ keys: ['y', 'yes'], value: 'allowed-once', echo: 'yes, once' }];
  const labels = ['[y] yes, once'];
  if (suggested !== undefined && offers('session')) {
    const rules = suggested.rules.join(', ');
    choices.push({
      keys: ['s', 'session'],
      value: { answer: 'allowed-session', rules: suggested.rules },
      echo: `yes, for this session (${rules})`,
    });
    labels.push(`[s] yes, for this session: ${rules}`);
  }
  if (suggested !== undefined && offers('project')) {
    const rules = suggested.rules.join(', ');
    choices.push({
      keys: ['a', 'always'],
      value: { answer: 'allowed-project', rules: suggested.rules },
      echo: `yes, always in this project (${rules})`,
    });
    labels.push(`[a] always, in this project: ${rules}`);
  }
  choices.push(no);
  labels.push('Enter or [n] no');
  const screen = ui.hold();
  try {
    screen.line(`  ${s.bold('?')} ${who} wants to run ${s.bold(subject)}`);
    if (detail !== undefined) screen.line(s.dim(ui.relative(detail)));
    if (request.reason !== undefined) screen.line(`    ${s.dim(request.reason)}`);
    // The answers on one line when it fits, else one a line: a choice cut in two is hard to read.
    const oneLine = `    ${labels.join('   ')}`;
    const columns = ui.columns();
    if (columns === undefined || visibleWidth(oneLine) <= columns) screen.line(oneLine);
    else for (const label of labels) screen.line(`    ${label}`);
    const answer = await chooseByKey({ input: terminal.input, screen, prompt: '  > ', choices, enter: no, signal: request.signal });
    if (answer.kind === 'interrupted') terminal.onInterrupt();
    return answer.kind === 'chosen' ? answer.value : 'cancelled';
  } finally {
    screen.release();
  }
}
