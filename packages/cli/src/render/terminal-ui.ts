import type { CallIdentity, Card, JsonValue, Outcome, UiAdapter } from '@deepseek-ai/dsh-core';
import { relativeTo, renderCompleted, renderPending, showsBodyWhenPending } from './cards.js';
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
  /** Pending bodies already shown (a program's text), so the completed card does not repeat them. */
  readonly #shownBodies = new Map<string, string>();
  /** Calls whose output was shown live, line by line: their completed card does not print it again. */
  readonly #streamed = new Set<string>();
  readonly #root: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #spinnerShown = false;
  /** Streamed model text ended without a newline: the next line starts on a fresh one. */
  #midLine = false;
  /** While above zero (a question is on screen), the spinner is not drawn. */
  #held = 0;

  /**
   * `spinner`: animate while calls run (only sensible on a TTY). `root`: the
   * workspace; cards show paths under it relative to it, pending and completed alike.
   */
  constructor(out: TextOut, style: Style, options: { readonly spinner: boolean; readonly root?: string }) {
    this.#out = out;
    this.#style = style;
    this.#spin = options.spinner;
    this.#root = options.root;
  }

  /** Prints a line, clearing the spinner first. */
  line(text: string): void {
    this.#clearSpinner();
    if (this.#midLine) this.#out.write('\n');
    this.#midLine = false;
    this.#out.write(`${text}\n`);
    this.#drawSpinner();
  }

  pending(call: CallIdentity, card: Card): void {
    if (showsBodyWhenPending(card) && card.body !== undefined) this.#shownBodies.set(key(call), card.body);
    this.line(relativeTo(this.#root, renderPending(this.#style, call, card)));
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
    if (lines.length > 0) this.#streamed.add(key(call));
    for (const l of lines) this.line(this.#style.dim(`    │ ${l}`));
  }

  completed(call: CallIdentity, card: Card, outcome: Outcome): void {
    for (const [id, rest] of this.#partial) {
      if (id.startsWith(`${key(call)}\u0000`)) {
        if (rest !== '') {
          this.line(this.#style.dim(`    │ ${rest}`));
          this.#streamed.add(key(call));
        }
        this.#partial.delete(id);
      }
    }
    // One call, one title: the completed card keeps the pending card's (`notes: list_notes`, not `mcp__notes__list_notes`).
    const title = this.#running.get(key(call)) ?? card.title;
    this.#running.delete(key(call));
    if (this.#running.size === 0) this.#stopSpinner();
    const shown = this.#shownBodies.get(key(call));
    this.#shownBodies.delete(key(call));
    const streamed = this.#streamed.delete(key(call));
    const omitBody = (shown !== undefined && shown === card.body) || streamed;
    this.line(relativeTo(this.#root, renderCompleted(this.#style, call, { ...card, title }, outcome, { omitBody })));
  }

  /** Writes streamed text (a model's answer, piece by piece) as it comes; the next line or card starts on a new line. */
  text(delta: string): void {
    if (delta === '') return;
    this.#clearSpinner();
    this.#out.write(delta);
    this.#midLine = !delta.endsWith('\n');
  }

  /**
   * Keeps the spinner off the screen until the returned function is called:
   * for a question typed at the terminal, which a redrawn spinner would overwrite.
   */
  hold(): () => void {
    this.#clearSpinner();
    if (this.#midLine) this.#out.write('\n');
    this.#midLine = false;
    this.#held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= 1;
      this.#drawSpinner();
    };
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
    if (this.#timer === undefined || this.#running.size === 0 || this.#held > 0) return;
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
