import { createInterface } from 'node:readline';
import { type AuthorizationHandler, authorizationArrived, type ElicitationAnswer, type ElicitationHandler } from '@deepseek-ai/dsh-mcp';
import type { Style } from '../render/style.js';
import type { TerminalUi } from '../render/terminal-ui.js';
import { chooseByKey, type KeyChoice, type KeyInput } from './key-choice.js';

/** Where MCP servers' questions are asked; `input` undefined when stdin is not a terminal. */
export interface McpPromptTerminal {
  readonly input: KeyInput | undefined;
  /** Where a form's fields are asked (readline echoes what is typed there). */
  readonly output: NodeJS.WritableStream;
  readonly ui: TerminalUi;
  readonly style: Style;
  /** Called when Ctrl-C is pressed while the authorization question is open (raw mode takes the key from the process). */
  readonly onInterrupt?: () => void;
}

type Field = { readonly type?: unknown; readonly description?: unknown; readonly default?: unknown; readonly enum?: unknown };

/**
 * A server's elicitation asked at the terminal, field by field: an empty
 * answer leaves the field out (the schema's default is applied), `-` at the
 * first field declines. Without a terminal every request is declined, saying so.
 */
export function terminalElicitation(t: McpPromptTerminal): ElicitationHandler {
  return async (request) => {
    const { ui, style: s } = t;
    if (t.input === undefined || request.mode !== 'form') {
      const why = t.input === undefined ? 'stdin is not a terminal' : 'URL-mode requests are not answered here';
      ui.line(`  ${s.yellow('✘')} MCP server ${request.server} asks: ${request.message} — declined: ${why}`);
      return { action: 'decline' };
    }
    const screen = ui.hold();
    const rl = createInterface({ input: t.input, output: t.output, terminal: true });
    try {
      screen.line(
        `  ${s.bold('?')} MCP server ${s.bold(request.server)} asks: ${request.message} ${s.dim('(empty keeps the default, - declines)')}`,
      );
      const properties = (request.requestedSchema?.properties ?? {}) as Record<string, Field>;
      const content: Record<string, string | number | boolean> = {};
      for (const [name, field] of Object.entries(properties)) {
        const hint = [field.type, field.default === undefined ? undefined : `default ${JSON.stringify(field.default)}`]
          .filter((x) => x !== undefined)
          .join(', ');
        const line = await question(rl, `    ${name}${hint === '' ? '' : ` (${hint})`}: `, request.signal);
        if (line === undefined) return { action: 'cancel' };
        if (line === '-') return { action: 'decline' };
        if (line === '') continue;
        content[name] =
          field.type === 'number' || field.type === 'integer'
            ? Number(line)
            : field.type === 'boolean'
              ? /^(y|yes|true)$/i.test(line)
              : line;
      }
      return { action: 'accept', content } satisfies ElicitationAnswer;
    } finally {
      rl.close();
      screen.release();
    }
  };
}

/**
 * An OAuth authorization asked at the terminal: the URL to open, then one
 * key: Enter once the page is open (dsh then waits for the browser's
 * redirect), `n` or `-` declines at once (the server fails with
 * `MCP_AUTH_REQUIRED`, nothing is waited for), Ctrl-C declines and stops the
 * run. Without a terminal it is declined, saying so.
 */
export function terminalAuthorization(t: McpPromptTerminal): AuthorizationHandler {
  return async (request) => {
    const { ui, style: s } = t;
    if (t.input === undefined) {
      ui.line(`  ${s.yellow('✘')} MCP server ${request.server} needs authorization; stdin is not a terminal: declined`);
      return false;
    }
    const wait: KeyChoice<undefined | false> = { keys: [], value: undefined, echo: 'waiting for the browser' };
    const decline: KeyChoice<undefined | false> = { keys: ['n', 'no', '-'], value: false, echo: 'declined' };
    const screen = ui.hold();
    try {
      screen.line(`  ${s.bold('?')} MCP server ${s.bold(request.server)} needs authorization. Open this URL in a browser:`);
      // Never wrapped: a URL cut into indented pieces cannot be copied.
      screen.line(`    ${request.url}`, { wrap: false });
      screen.line(`    Enter: continue in the browser (dsh waits for it)   [n] or [-] decline`);
      const answer = await chooseByKey({
        input: t.input,
        screen,
        prompt: '  > ',
        choices: [wait, decline],
        enter: wait,
        signal: request.signal,
        withdrawnEcho: (reason) => (reason === authorizationArrived ? 'authorized in the browser' : 'withdrawn'),
      });
      if (answer.kind === 'interrupted') t.onInterrupt?.();
      if (answer.kind === 'chosen') return answer.value;
      // Withdrawn: the authorization arrived, or dsh stopped waiting (its timeout, the server closed) and says why itself.
      return answer.kind === 'withdrawn' ? undefined : false;
    } finally {
      screen.release();
    }
  };
}

function question(rl: ReturnType<typeof createInterface>, prompt: string, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((done) => {
    const onAbort = (): void => done(undefined);
    if (signal.aborted) return done(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    rl.once('close', () => done(undefined));
    rl.question(prompt, (line) => {
      signal.removeEventListener('abort', onAbort);
      done(line.trim());
    });
  });
}
