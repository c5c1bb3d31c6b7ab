import { createInterface } from 'node:readline';
import type { HeldScreen } from '../render/terminal-ui.js';

/** One answer of a question: the keys that choose it and what is echoed when it is chosen. */
export interface KeyChoice<T> {
  /** Lower-case keys (`y`, `-`); in line mode whole words too (`yes`). */
  readonly keys: readonly string[];
  readonly value: T;
  /** Printed after the prompt once chosen (`yes, once`). */
  readonly echo: string;
}

/** A terminal's input: raw mode is used when it is a TTY. */
export type KeyInput = NodeJS.ReadableStream & { readonly isTTY?: boolean; readonly isRaw?: boolean; setRawMode?(raw: boolean): unknown };

/** What a question asked by {@link chooseByKey} is given. */
export interface KeyQuestion<T> {
  readonly input: KeyInput;
  /** Where the prompt and the echo go (the question's lines are printed before). */
  readonly screen: HeldScreen;
  /** Printed before the answer, on the line the answer is echoed on (`  > `). */
  readonly prompt: string;
  readonly choices: readonly KeyChoice<T>[];
  /** What Enter (or, in line mode, an empty or unknown line) chooses: the default the question shows. */
  readonly enter: KeyChoice<T>;
  /** Aborted when nobody waits for the answer any more: the question is withdrawn. */
  readonly signal: AbortSignal;
  /** What is echoed when the signal withdrew the question; `withdrawn` by default. */
  readonly withdrawnEcho?: (reason: unknown) => string;
}

/** How a question ended: a choice, Ctrl-C, withdrawn by the signal, or the input closed. */
export type KeyAnswer<T> =
  | { readonly kind: 'chosen'; readonly value: T }
  | { readonly kind: 'interrupted' }
  | { readonly kind: 'withdrawn' }
  | { readonly kind: 'closed' };

const ctrlC = '\u0003';
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences start with ESC
const escapes = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001bO.|\u001b/g;

/**
 * Asks with one key on a TTY: the terminal goes into raw mode, a listed key
 * answers at once (no Enter), Enter takes the default, Ctrl-C interrupts,
 * any other key is ignored; the answer is echoed once after the prompt, on
 * the same line. When the input is not a TTY, a line is read instead (today's
 * line-based answers: a key or word, anything else the default).
 */
export async function chooseByKey<T>(question: KeyQuestion<T>): Promise<KeyAnswer<T>> {
  const { screen, signal } = question;
  if (signal.aborted) return { kind: 'withdrawn' };
  screen.write(question.prompt);
  const raw = question.input.isTTY === true && typeof question.input.setRawMode === 'function';
  const answer = await (raw ? readKey(question) : readLine(question));
  const echo =
    answer.kind === 'chosen'
      ? (question.choices.find((c) => c.value === answer.value) ?? question.enter).echo
      : answer.kind === 'interrupted'
        ? 'cancelled (Ctrl-C)'
        : answer.kind === 'withdrawn'
          ? (question.withdrawnEcho?.(signal.reason) ?? 'withdrawn')
          : 'cancelled (input closed)';
  screen.write(`${echo}\n`);
  return answer;
}

function choiceFor<T>(question: KeyQuestion<T>, key: string): KeyChoice<T> | undefined {
  if (key === '\r' || key === '\n') return question.enter;
  const lower = key.toLowerCase();
  return question.choices.find((c) => c.keys.includes(lower));
}

function readKey<T>(question: KeyQuestion<T>): Promise<KeyAnswer<T>> {
  const input = question.input;
  const wasRaw = input.isRaw === true;
  return new Promise((done) => {
    const finish = (answer: KeyAnswer<T>): void => {
      input.off('data', onData);
      input.off('end', onClosed);
      input.off('close', onClosed);
      question.signal.removeEventListener('abort', onAbort);
      input.setRawMode?.(wasRaw);
      // A paused stdin does not keep the process alive between questions.
      input.pause();
      done(answer);
    };
    const onData = (chunk: Buffer | string): void => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (text.includes(ctrlC)) {
        finish({ kind: 'interrupted' });
        return;
      }
      // Arrow keys and other escape sequences are ignored, not read as the letters they end with.
      const choice = [...text.replace(escapes, '')].map((key) => choiceFor(question, key)).find((c) => c !== undefined);
      if (choice !== undefined) finish({ kind: 'chosen', value: choice.value });
    };
    const onClosed = (): void => finish({ kind: 'closed' });
    const onAbort = (): void => finish({ kind: 'withdrawn' });
    input.setRawMode?.(true);
    input.on('data', onData);
    input.once('end', onClosed);
    input.once('close', onClosed);
    question.signal.addEventListener('abort', onAbort, { once: true });
    input.resume();
  });
}

function readLine<T>(question: KeyQuestion<T>): Promise<KeyAnswer<T>> {
  const rl = createInterface({ input: question.input, terminal: false });
  let onAbort = (): void => undefined;
  return new Promise<KeyAnswer<T>>((done) => {
    onAbort = (): void => done({ kind: 'withdrawn' });
    question.signal.addEventListener('abort', onAbort, { once: true });
    rl.once('close', () => done({ kind: 'closed' }));
    rl.once('line', (line) => {
      const word = line.trim().toLowerCase();
      const choice = word === '' ? question.enter : (question.choices.find((c) => c.keys.includes(word)) ?? question.enter);
      done({ kind: 'chosen', value: choice.value });
    });
  }).finally(() => {
    question.signal.removeEventListener('abort', onAbort);
    rl.close();
  });
}
