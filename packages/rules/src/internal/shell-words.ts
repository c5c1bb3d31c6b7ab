import { decodeAnsiEscape } from './ansi-c.js';

/** One shell word: its source text, its value after quote removal, and what it contains. */
export interface Word {
  readonly raw: string;
  /** After quote removal; expansions are left as written (`$HOME`, `$(date)`). */
  readonly value: string;
  /** Some part of it was quoted or escaped. */
  readonly quoted: boolean;
  /** It contains a parameter expansion or a substitution outside single quotes: its value is not known statically. */
  readonly expanded: boolean;
  /** It contains an unquoted glob character (`*`, `?`, `[`). */
  readonly glob: boolean;
}

/** Where a command was found. */
export type CommandOrigin = 'top' | 'substitution' | 'process-substitution' | 'heredoc';

/** How deeply substitutions may nest before the scanner gives up on a line. */
export const maxDepth = 16;

/** `name=` or `name[index]+=` before a `(`: an array assignment. */
const arrayAssignment = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/;
/** `{a,b}` or `{1..3}` at a word's start: brace expansion. */
const braceExpansion = /^\{[^\s]*(,|\.\.)[^\s]*\}/;

/** Characters that end a word and start an operator. */
export const operatorChars: ReadonlySet<string> = new Set([';', '&', '|', '(', ')']);

/**
 * The word level of the shell scanner: reads one word at the cursor `i`
 * through quotes, escapes, `$'…'`, parameter and arithmetic expansions, and
 * hands every command substitution it meets (`$(…)`, backticks, `<(…)`,
 * `>(…)`) to the command level, one level deeper. Whatever it cannot read
 * statically it records in `problems`.
 */
export abstract class ShellWords {
  i = 0;
  protected readonly src: string;
  protected readonly depth: number;
  readonly #problems: string[];

  constructor(src: string, problems: string[], depth: number) {
    this.src = src;
    this.#problems = problems;
    this.depth = depth;
  }

  /** Parses the commands of a substitution from `i` up to and including its closing `)`. */
  protected abstract parseNested(origin: CommandOrigin): void;

  /** Parses `text` (a backtick body, a here-document) as commands one level deeper. */
  protected abstract parseText(text: string, origin: CommandOrigin): void;

  protected problem(message: string): void {
    this.#problems.push(message);
  }

  /**
   * Reads one word, extracting every substitution inside it. Plain characters are not appended one
   * by one: each run of them is sliced from the source once, when something else (a quote, an
   * expansion, the word's end) interrupts it.
   */
  protected readWord(): Word {
    const src = this.src;
    const start = this.i;
    let value = '';
    let run = start;
    let quoted = false;
    let expanded = false;
    let glob = false;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') break;
      if (c === '(' && arrayAssignment.test(src.slice(start, this.i))) {
        // `name=( … )`: an array assignment.
        value += src.slice(run, this.i);
        this.i += 1;
        value += `(${this.#skipBalanced()})`;
        run = this.i;
        continue;
      }
      if (operatorChars.has(c)) break;
      if (c === '<' || c === '>') {
        if (src[this.i + 1] !== '(') break;
        value += src.slice(run, this.i);
        this.i += 2;
        const from = this.i - 2;
        this.#substitution('process-substitution');
        value += src.slice(from, this.i);
        expanded = true;
        run = this.i;
        continue;
      }
      if (c === '\\') {
        value += src.slice(run, this.i);
        const next = src[this.i + 1];
        this.i += 2;
        run = this.i;
        if (next === '\n' || next === undefined) continue;
        value += next;
        quoted = true;
        continue;
      }
      if (c === "'") {
        value += src.slice(run, this.i);
        const end = src.indexOf("'", this.i + 1);
        if (end === -1) {
          this.problem('a single quote is not closed');
          value += src.slice(this.i + 1);
          this.i = src.length;
        } else {
          value += src.slice(this.i + 1, end);
          this.i = end + 1;
        }
        quoted = true;
        run = this.i;
        continue;
      }
      // "…" and its locale-translated form $"…" read alike.
      if (c === '"' || (c === '$' && src[this.i + 1] === '"')) {
        value += src.slice(run, this.i);
        this.i += c === '"' ? 1 : 2;
        const inner = this.scanDoubleQuoted(true);
        value += inner.value;
        expanded ||= inner.expanded;
        quoted = true;
        run = this.i;
        continue;
      }
      if (c === '$' && src[this.i + 1] === "'") {
        value += src.slice(run, this.i);
        this.i += 2;
        value += this.#readAnsiC();
        quoted = true;
        run = this.i;
        continue;
      }
      if (c === '$' || c === '`') {
        value += src.slice(run, this.i);
        const expansion = this.readExpansion();
        value += expansion;
        expanded ||= expansion !== '$';
        run = this.i;
        continue;
      }
      // `[` and `?` glob; `{a,b}` is brace expansion: either way the word is not known statically.
      if (c === '*' || c === '?' || c === '[' || (c === '{' && this.i > start)) glob = true;
      if (c === '{' && this.i === start && braceExpansion.test(src.slice(this.i, this.i + 256))) glob = true;
      this.i += 1;
    }
    value += src.slice(run, this.i);
    return { raw: src.slice(start, this.i), value, quoted, expanded, glob };
  }

  /** Reads `$…` or a backtick substitution at `i`; returns its source text (`$` alone when literal). */
  protected readExpansion(): string {
    const src = this.src;
    const from = this.i;
    if (src[this.i] === '`') {
      this.#backtick();
      return src.slice(from, this.i);
    }
    const next = src[this.i + 1];
    if (next === '(') {
      if (src[this.i + 2] === '(') {
        this.i += 3;
        this.skipArithmetic();
      } else {
        this.i += 2;
        this.#substitution('substitution');
      }
      return src.slice(from, this.i);
    }
    if (next === '{') {
      this.i += 2;
      this.#skipParameter();
      return src.slice(from, this.i);
    }
    if (next !== undefined && /[A-Za-z_]/.test(next)) {
      this.i += 2;
      while (this.i < src.length && /[A-Za-z0-9_]/.test(src[this.i] as string)) this.i += 1;
      return src.slice(from, this.i);
    }
    if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      this.i += 2;
      return src.slice(from, this.i);
    }
    this.i += 1;
    return '$';
  }

  /** Scans double-quoted text (or, with `quote` false, a here-document body to its end); plain runs are sliced once, as `readWord` does. */
  protected scanDoubleQuoted(quote: boolean): { value: string; expanded: boolean } {
    const src = this.src;
    let value = '';
    let run = this.i;
    let expanded = false;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (quote && c === '"') {
        value += src.slice(run, this.i);
        this.i += 1;
        return { value, expanded };
      }
      if (c === '\\') {
        const next = src[this.i + 1];
        if (next !== undefined && '$`"\\\n'.includes(next)) {
          value += src.slice(run, this.i);
          if (next !== '\n') value += next;
          this.i += 2;
          run = this.i;
        } else {
          // A backslash before any other character stays, like a plain character.
          this.i += 1;
        }
        continue;
      }
      if (c === '$' || c === '`') {
        value += src.slice(run, this.i);
        const expansion = this.readExpansion();
        value += expansion;
        expanded ||= expansion !== '$';
        run = this.i;
        continue;
      }
      this.i += 1;
    }
    value += src.slice(run, this.i);
    if (quote) this.problem('a double quote is not closed');
    return { value, expanded };
  }

  #readAnsiC(): string {
    const src = this.src;
    let value = '';
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === "'") {
        this.i += 1;
        return value;
      }
      if (c === '\\' && this.i + 1 < src.length) {
        const decoded = decodeAnsiEscape(src, this.i + 1);
        value += decoded.text;
        this.i = decoded.end;
        continue;
      }
      value += c;
      this.i += 1;
    }
    this.problem("a $'…' quote is not closed");
    return value;
  }

  /** Parses a `$(…)`, `<(…)` or `>(…)` body (after its opening) up to and including its `)`. */
  #substitution(origin: CommandOrigin): void {
    if (this.depth >= maxDepth) {
      this.problem('substitutions are nested too deeply to check');
      this.i = this.src.length;
      return;
    }
    this.parseNested(origin);
  }

  #backtick(): void {
    const src = this.src;
    this.i += 1;
    let body = '';
    let closed = false;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === '\\' && this.i + 1 < src.length) {
        const next = src[this.i + 1] as string;
        body += '$`\\'.includes(next) ? next : `\\${next}`;
        this.i += 2;
        continue;
      }
      this.i += 1;
      if (c === '`') {
        closed = true;
        break;
      }
      body += c;
    }
    if (!closed) this.problem('a backtick substitution is not closed');
    if (this.depth >= maxDepth) {
      this.problem('substitutions are nested too deeply to check');
      return;
    }
    this.parseText(body, 'substitution');
  }

  /** Skips `${…}`, extracting substitutions inside it. */
  #skipParameter(): void {
    if (!this.#skipNested('{', '}')) this.problem('a "${" is not closed');
  }

  /** Skips an arithmetic expression after `((` or `$((`, up to its `))`, extracting substitutions. */
  protected skipArithmetic(): void {
    const src = this.src;
    let depth = 0;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === '(') {
        depth += 1;
        this.i += 1;
      } else if (c === ')') {
        if (depth > 0) {
          depth -= 1;
          this.i += 1;
        } else if (src[this.i + 1] === ')') {
          this.i += 2;
          return;
        } else {
          this.problem('an arithmetic expression is not closed with "))"');
          this.i += 1;
          return;
        }
      } else if (c === '$' || c === '`') {
        this.readExpansion();
      } else if (c === '"') {
        this.i += 1;
        this.scanDoubleQuoted(true);
      } else if (c === "'") {
        const end = src.indexOf("'", this.i + 1);
        this.i = end === -1 ? src.length : end + 1;
      } else {
        this.i += 1;
      }
    }
    this.problem('an arithmetic expression is not closed with "))"');
  }

  /** Skips to the `)` that closes an array assignment, extracting substitutions; returns the text inside. */
  #skipBalanced(): string {
    const from = this.i;
    if (this.#skipNested('(', ')')) return this.src.slice(from, this.i - 1);
    this.problem('an array assignment is not closed');
    return this.src.slice(from);
  }

  /**
   * Skips to the `close` that balances an `open` already read, past quotes and escapes, extracting
   * the substitutions on the way; false when the text ends first.
   */
  #skipNested(open: string, close: string): boolean {
    const src = this.src;
    let depth = 1;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === close) {
        depth -= 1;
        this.i += 1;
        if (depth === 0) return true;
      } else if (c === open) {
        depth += 1;
        this.i += 1;
      } else if (c === '\\') {
        this.i += 2;
      } else if (c === "'") {
        const end = src.indexOf("'", this.i + 1);
        this.i = end === -1 ? src.length : end + 1;
      } else if (c === '"') {
        this.i += 1;
        this.scanDoubleQuoted(true);
      } else if (c === '$' || c === '`') {
        this.readExpansion();
      } else {
        this.i += 1;
      }
    }
    return false;
  }
}
