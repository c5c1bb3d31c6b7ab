import type { CallIdentity, Card, JsonValue, Outcome, UiAdapter } from '@deepseek-ai/dsh-core';
import { renderCompleted, renderPending } from './cards.js';
import type { Style } from './style.js';

/** Where the terminal UI writes. */
export interface TextOut {
  write(text: string): void;
}

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A UI adapter for a terminal: pending and completed cards, live output of
 * running commands as `│`-prefixed lines, and on a TTY a spinner while calls
 * run. Call `close()` when done, so the spinner's timer stops.
 */
export class TerminalUi implements UiAdapter {
  readonly #out: TextOut;
  readonly #style: Style;
  readonly #spin: boolean;
  readonly #running = new Map<string, string>();
  readonly #partial = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #spinnerShown = false;

  /** `spinner`: animate while calls run (only sensible on a TTY). */
  constructor(out: TextOut, style: Style, options: { readonly spinner: boolean }) {
    this.#out = out;
    this.#style = style;
    this.#spin = options.spinner;
  }

  /** Prints a line, clearing the spinner first. */
  line(text: string): void {
    this.#clearSpinner();
    this.#out.write(`${text}\n`);
    this.#drawSpinner();
  }

  pending(call: CallIdentity, card: Card): void {
    this.line(renderPending(this.#style, call, card));
    this.#running.set(key(call), card.title);
    this.#startSpinner();
  }

  progress(call: CallIdentity, update: JsonValue): void {
    if (typeof update !== 'object' || update === null || Array.isArray(update)) return;
    const o = update as Record<string, JsonValue>;
    if (o.type !== 'output' || typeof o.text !== 'string') return;
    const id = `${key(call)}\u0000${String(o.stream)}`;
    const text = (this.#partial.get(id) ?? '') + o.text;
    const lines = text.split('\n');
    this.#partial.set(id, lines.pop() ?? '');
    for (const l of lines) this.line(this.#style.dim(`    │ ${l}`));
  }

  completed(call: CallIdentity, card: Card, outcome: Outcome): void {
    for (const [id, rest] of this.#partial) {
      if (id.startsWith(`${key(call)}\u0000`)) {
        if (rest !== '') this.line(this.#style.dim(`    │ ${rest}`));
        this.#partial.delete(id);
      }
    }
    this.#running.delete(key(call));
    if (this.#running.size === 0) this.#stopSpinner();
    this.line(renderCompleted(this.#style, call, card, outcome));
  }

  /** Stops the spinner. */
  close(): void {
    this.#stopSpinner();
  }

  #startSpinner(): void {
    if (!this.#spin || this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.#frame = (this.#frame + 1) % frames.length;
      this.#clearSpinner();
      this.#drawSpinner();
    }, 80);
    this.#timer.unref();
  }

  #stopSpinner(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clearSpinner();
  }

  #drawSpinner(): void {
    if (this.#timer === undefined || this.#running.size === 0) return;
    const titles = [...this.#running.values()];
    this.#out.write(
      this.#style.dim(`${frames[this.#frame]} running ${titles.at(-1)}${titles.length > 1 ? ` (+${titles.length - 1})` : ''}`),
    );
    this.#spinnerShown = true;
  }

  #clearSpinner(): void {
    if (!this.#spinnerShown) return;
    this.#out.write('\r\u001b[K');
    this.#spinnerShown = false;
  }
}

function key(call: CallIdentity): string {
  return `${call.token}/${call.id}`;
}
