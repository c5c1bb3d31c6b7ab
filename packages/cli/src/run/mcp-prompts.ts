import { createInterface } from 'node:readline';
import type { AuthorizationHandler, ElicitationAnswer, ElicitationHandler } from '@deepseek-ai/dsh-mcp';
import type { Style } from '../render/style.js';
import type { TerminalUi } from '../render/terminal-ui.js';

/** Where MCP servers' questions are asked; `input` undefined when stdin is not a terminal. */
export interface McpPromptTerminal {
  readonly input: NodeJS.ReadableStream | undefined;
  readonly output: NodeJS.WritableStream;
  readonly ui: TerminalUi;
  readonly style: Style;
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
    const release = ui.hold();
    const rl = createInterface({ input: t.input, output: t.output, terminal: true });
    try {
      ui.line(
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
      release();
    }
  };
}

/** An OAuth authorization shown at the terminal: the person opens the URL; without a terminal it is declined. */
export function terminalAuthorization(t: McpPromptTerminal): AuthorizationHandler {
  return (request) => {
    const { ui, style: s } = t;
    if (t.input === undefined) {
      ui.line(`  ${s.yellow('✘')} MCP server ${request.server} needs authorization; stdin is not a terminal: declined`);
      return false;
    }
    ui.line(`  ${s.bold('?')} MCP server ${s.bold(request.server)} needs authorization. Open this URL in a browser:`);
    ui.line(`    ${request.url}`);
    return undefined;
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
