import type { CallIdentity, Card, JsonValue, Outcome, UiAdapter } from '@deepseek-ai/dsh-core';
import { relativeTo, renderCompleted, renderPending, showsBodyWhenPending } from './cards.js';
import type { Style } from './style.js';
import { wrapText } from './wrap.js';

/** Where the terminal UI writes. */
export interface TextOut {
  write(text: string): void;
}

/** How {@link TerminalUi.line} prints a line. */
export interface LineOptions {
  /** Leave the line as it is, however wide (a URL must stay whole to be copied). Default: wrapped to the width. */
  readonly wrap?: boolean;
}

/**
 * The screen while a question is on it (from {@link TerminalUi.hold}): what the
 * question prints goes out at once, every other line waits until `release()`,
 * so a card or live output of a parallel call never lands in the answer's line.
 */
export interface HeldScreen {
  line(text: string, options?: LineOptions): void;
  /** Writes `text` as it is, without a newline: a prompt the answer is echoed after. */
  write(text: string): void;
  release(): void;
}

/** The options of a {@link TerminalUi}. */
export interface TerminalUiOptions {
  /** Animate while calls run (only sensible on a TTY). */
  readonly spinner: boolean;
  /** The workspace: cards show paths under it relative to it, pending and completed alike. */
  readonly root?: string;
  /**
   * The terminal's width in columns, asked for each line (it changes when the window does):
   * lines wrap at word boundaries to it, keeping their indent and gutter. Absent: no wrapping.
   */
  readonly width?: (() => number | undefined) | undefined;
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
  readonly #width: (() => number | undefined) | undefined;
  readonly #running = new Map<string, Card>();
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
  /** While above zero (a question is on screen), the spinner is not drawn and other output waits. */
  #held = 0;
  /** Output that came while a question was on screen, in order: printed when the last question is answered. */
  #waiting: (() => void)[] = [];

  constructor(out: TextOut, style: Style, options: TerminalUiOptions) {
    this.#out = out;
    this.#style = style;
    this.#spin = options.spinner;
    this.#root = options.root;
    this.#width = options.width;
  }

  /** Prints a line (wrapped to the width, unless `wrap: false`), clearing the spinner first; waits while a question is open. */
  line(text: string, options: LineOptions = {}): void {
    if (this.#held > 0) {
      this.#waiting.push(() => this.#print(text, options));
      return;
    }
    this.#print(text, options);
  }

  /** The width lines wrap to now; undefined when nothing is wrapped (not a terminal). */
  columns(): number | undefined {
    return this.#width?.();
  }

  /** `text` with paths under the workspace made relative to it, as the cards show them. */
  relative(text: string): string {
    return relativeTo(this.#root, text);
  }

  /** The pending card shown for a call still running (its title and summary, paths relative to the workspace). */
  pendingCard(call: CallIdentity): Card | undefined {
    const card = this.#running.get(key(call));
    if (card === undefined) return undefined;
    return {
      ...card,
      title: relativeTo(this.#root, card.title),
      ...(card.summary === undefined ? {} : { summary: relativeTo(this.#root, card.summary) }),
    };
  }

  #print(text: string, options: LineOptions): void {
    this.#clearSpinner();
    if (this.#midLine) this.#out.write('\n');
    this.#midLine = false;
    const width = options.wrap === false ? undefined : this.#width?.();
    this.#out.write(`${width === undefined ? text : wrapText(text, width)}\n`);
    this.#drawSpinner();
  }

  pending(call: CallIdentity, card: Card): void {
    if (showsBodyWhenPending(card) && card.body !== undefined) this.#shownBodies.set(key(call), card.body);
    this.line(relativeTo(this.#root, renderPending(this.#style, call, card)));
    this.#running.set(key(call), card);
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
    const title = this.#running.get(key(call))?.title ?? card.title;
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
    if (this.#held > 0) {
      this.#waiting.push(() => this.text(delta));
      return;
    }
    this.#clearSpinner();
    this.#out.write(delta);
    this.#midLine = !delta.endsWith('\n');
  }

  /**
   * Puts a question on the screen: the spinner stays off (it would overwrite
   * what is typed) and other output waits until every question is released.
   */
  hold(): HeldScreen {
    this.#clearSpinner();
    if (this.#midLine) this.#out.write('\n');
    this.#midLine = false;
    this.#held += 1;
    let released = false;
    return {
      line: (text, options = {}) => {
        if (!released) this.#print(text, options);
      },
      write: (text) => {
        if (released || text === '') return;
        this.#out.write(text);
        this.#midLine = !text.endsWith('\n');
      },
      release: () => {
        if (released) return;
        released = true;
        this.#held -= 1;
        if (this.#held > 0) return;
        for (const print of this.#waiting.splice(0)) print();
        this.#drawSpinner();
      },
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
    const titles = [...this.#running.values()].map((card) => card.title);
    let text = `${frames[this.#frame]} running ${titles.at(-1)}${titles.length > 1 ? ` (+${titles.length - 1})` : ''}`;
    // One row only: `\r` and clear-line take back just the last row, so a wrapped spinner would leave copies behind.
    const width = this.#width?.();
    if (width !== undefined && [...text].length >= width) text = `${[...text].slice(0, Math.max(1, width - 2)).join('')}…`;
    this.#out.write(this.#style.dim(text));
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
