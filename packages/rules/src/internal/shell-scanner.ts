import { type CommandOrigin, operatorChars, ShellWords, type Word } from './shell-words.js';

/**
 * A static scanner for POSIX/bash command lines: finds every simple command
 * that would run, including those inside `$(…)`, backticks, `<(…)`, `>(…)`,
 * subshells, groups, control structures and unquoted here-documents. It
 * never runs or expands anything; where it meets something it cannot read
 * statically it records a problem, so callers can refuse to allow the line.
 */

/** A redirection of a simple command. */
export interface Redirection {
  /** The operator with its fd prefix, as written (`2>`, `>>`, `&>`). */
  readonly op: string;
  readonly target: Word;
  /** Changes nothing outside the process: an fd duplication, `/dev/null`, a here-document or here-string. */
  readonly harmless: boolean;
  /** Writes to (or truncates) its target. */
  readonly writes: boolean;
}

/** A simple command: its words (leading assignments removed) and redirections. */
export interface RawCommand {
  readonly words: readonly Word[];
  readonly redirections: readonly Redirection[];
  readonly origin: CommandOrigin;
}

/** What scanning collects: the commands, and what could not be read. */
export interface ScanSink {
  readonly commands: RawCommand[];
  readonly problems: string[];
}

const prefixWords = new Set(['if', 'then', 'elif', 'else', 'do', 'while', 'until', '!', '{', 'time', 'coproc']);
const closingWords = new Set(['fi', 'done', '}']);
const assignment = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
/** Redirection operators, longest first so that `<<<` is not read as `<<`. */
const redirectionOperators = ['<<<', '<<-', '&>>', '<<', '<>', '<&', '>>', '>|', '>&', '&>', '<', '>'];

interface Heredoc {
  readonly delimiter: string;
  readonly quoted: boolean;
  readonly stripTabs: boolean;
}

interface CaseFrame {
  state: 'header' | 'pattern' | 'body';
}

/** Scans `source` and appends every simple command it finds to `sink`. */
export function scanShell(source: string, sink: ScanSink, depth = 0): void {
  const parser = new Parser(source, sink, depth, 'top');
  parser.parseList(false);
}

class Parser extends ShellWords {
  readonly #sink: ScanSink;
  readonly #origin: CommandOrigin;
  #words: Word[] = [];
  #redirections: Redirection[] = [];
  #heredocs: Heredoc[] = [];
  #skipSegment = false;
  #skipNextWord = false;
  #inCondition = false;
  #afterTime = false;
  #subshells = 0;
  readonly #cases: CaseFrame[] = [];

  constructor(src: string, sink: ScanSink, depth: number, origin: CommandOrigin) {
    super(src, sink.problems, depth);
    this.#sink = sink;
    this.#origin = origin;
  }

  protected parseNested(origin: CommandOrigin): void {
    const inner = new Parser(this.src, this.#sink, this.depth + 1, origin);
    inner.i = this.i;
    inner.parseList(true);
    this.i = inner.i;
  }

  protected parseText(text: string, origin: CommandOrigin): void {
    new Parser(text, this.#sink, this.depth + 1, origin).parseList(false);
  }

  /** Parses commands until the end of input or, with `closeParen`, the unmatched `)` that ends a substitution. */
  parseList(closeParen: boolean): void {
    const src = this.src;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === ' ' || c === '\t' || c === '\r') {
        this.i += 1;
      } else if (c === '\\' && src[this.i + 1] === '\n') {
        this.i += 2;
      } else if (c === '\n') {
        this.i += 1;
        this.#flush();
        this.#readHeredocs();
      } else if (c === '#') {
        while (this.i < src.length && src[this.i] !== '\n') this.i += 1;
      } else if (this.#inCondition && '&|<>()'.includes(c)) {
        // Inside `[[ … ]]` these are operators of the test, not of the shell.
        let end = this.i;
        while (end < src.length && '&|<>()'.includes(src[end] as string)) end += 1;
        this.i = end;
      } else if (c === ')') {
        if (this.#onCloseParen(closeParen)) return;
      } else if (operatorChars.has(c) && !this.#isRedirectionStart()) {
        this.#operator(c);
      } else if (this.#isRedirectionStart()) {
        this.#readRedirection();
      } else {
        this.#word(this.readWord());
      }
    }
    this.#flush();
    if (this.#heredocs.length > 0) this.problem('a here-document is not terminated');
    if (closeParen) this.problem('a "$(" or "<(" is not closed');
    if (this.#subshells > 0) this.problem('a "(" is not closed');
  }

  /** Handles `)`; returns true when it ends the substitution being parsed. */
  #onCloseParen(closeParen: boolean): boolean {
    const frame = this.#cases.at(-1);
    this.i += 1;
    if (frame !== undefined && frame.state === 'pattern') {
      frame.state = 'body';
      return false;
    }
    this.#flush();
    if (this.#subshells > 0) {
      this.#subshells -= 1;
      return false;
    }
    if (closeParen) return true;
    this.problem('a ")" has no matching "("');
    return false;
  }

  #operator(c: string): void {
    const src = this.src;
    const next = src[this.i + 1];
    if (c === '(') {
      if (next === '(' && this.#atCommandStart()) {
        this.i += 2;
        this.skipArithmetic();
        return;
      }
      const frame = this.#cases.at(-1);
      if (frame !== undefined && frame.state === 'pattern') {
        this.i += 1;
        return;
      }
      if (this.#atCommandStart()) {
        this.i += 1;
        this.#flush();
        this.#subshells += 1;
        return;
      }
      // `name ()` starts a function definition: the name is not a command.
      let j = this.i + 1;
      while (src[j] === ' ' || src[j] === '\t') j += 1;
      if (src[j] === ')' && this.#words.length === 1) {
        this.#words = [];
        this.i = j + 1;
        return;
      }
      this.problem('an unexpected "(" in the middle of a command');
      this.i += 1;
      this.#flush();
      return;
    }
    if (c === ';') {
      const frame = this.#cases.at(-1);
      if (next === ';') {
        this.i += src[this.i + 2] === '&' ? 3 : 2;
        this.#flush();
        if (frame !== undefined) frame.state = 'pattern';
        return;
      }
      this.i += next === '&' && frame !== undefined ? 2 : 1;
      this.#flush();
      if (next === '&' && frame !== undefined) frame.state = 'pattern';
      return;
    }
    if (c === '|') {
      const frame = this.#cases.at(-1);
      if (frame !== undefined && frame.state === 'pattern') {
        this.i += 1;
        return;
      }
      this.i += next === '|' || next === '&' ? 2 : 1;
      this.#flush();
      return;
    }
    // `&` or `&&` (a `&>` redirection never reaches here).
    this.i += next === '&' ? 2 : 1;
    this.#flush();
  }

  #atCommandStart(): boolean {
    return this.#words.length === 0 && this.#redirections.length === 0;
  }

  #isRedirectionStart(): boolean {
    const src = this.src;
    const c = src[this.i];
    if (c === '<' || c === '>') return src[this.i + 1] !== '(';
    if (c === '&') return src[this.i + 1] === '>';
    if (c !== undefined && c >= '0' && c <= '9') {
      let j = this.i;
      while (j < src.length && (src[j] as string) >= '0' && (src[j] as string) <= '9') j += 1;
      return (src[j] === '<' || src[j] === '>') && src[j + 1] !== '(';
    }
    if (c === '{') {
      const m = /^\{[A-Za-z_][A-Za-z0-9_]*\}[<>]/.exec(src.slice(this.i, this.i + 66));
      return m !== null;
    }
    return false;
  }

  #readRedirection(): void {
    const src = this.src;
    const start = this.i;
    while (this.i < src.length && (src[this.i] as string) >= '0' && (src[this.i] as string) <= '9') this.i += 1;
    if (src[this.i] === '{') this.i = src.indexOf('}', this.i) + 1;
    const op = redirectionOperators.find((o) => src.startsWith(o, this.i)) ?? '>';
    this.i += op.length;
    const opText = src.slice(start, this.i);
    while (src[this.i] === ' ' || src[this.i] === '\t') this.i += 1;
    if (this.i >= src.length || '\n;&|()<>'.includes(src[this.i] as string)) {
      this.problem(`the redirection "${opText}" has no target`);
      return;
    }
    const target = this.readWord();
    if (op === '<<' || op === '<<-') {
      this.#heredocs.push({ delimiter: target.value, quoted: target.quoted, stripTabs: op === '<<-' });
      this.#redirections.push({ op: opText, target, harmless: true, writes: false });
      return;
    }
    const duplicate = (op === '>&' || op === '<&') && /^(\d+-?|-)$/.test(target.value);
    const devNull = target.value === '/dev/null' && !target.expanded;
    const writes = op.includes('>') && !duplicate && !devNull;
    this.#redirections.push({ op: opText, target, harmless: op === '<<<' || duplicate || devNull, writes });
  }

  #word(word: Word): void {
    if (this.#skipNextWord) {
      this.#skipNextWord = false;
      return;
    }
    const plain = word.quoted ? undefined : word.raw;
    if (this.#inCondition) {
      if (plain === ']]') this.#inCondition = false;
      return;
    }
    const frame = this.#cases.at(-1);
    if (frame?.state === 'header') {
      if (plain === 'in') frame.state = 'pattern';
      return;
    }
    if (frame?.state === 'pattern') {
      if (plain === 'esac') this.#cases.pop();
      return;
    }
    if (this.#skipSegment) return;
    if (this.#words.length === 0 && plain !== undefined) {
      if (this.#afterTime && plain === '-p') return;
      this.#afterTime = plain === 'time';
      if (prefixWords.has(plain) || closingWords.has(plain)) return;
      if (plain === 'esac' && frame !== undefined) {
        this.#cases.pop();
        return;
      }
      if (plain === 'for' || plain === 'select') {
        this.#skipSegment = true;
        return;
      }
      if (plain === 'case') {
        this.#cases.push({ state: 'header' });
        return;
      }
      if (plain === 'function') {
        this.#skipNextWord = true;
        return;
      }
      if (plain === '[[') {
        this.#inCondition = true;
        return;
      }
    }
    // `=` first: most words are no assignment, and the test is cheaper than the pattern.
    if (this.#words.length === 0 && word.raw.includes('=') && assignment.test(word.raw)) return;
    this.#words.push(word);
  }

  #flush(): void {
    this.#skipSegment = false;
    this.#skipNextWord = false;
    this.#afterTime = false;
    const words = this.#words;
    const redirections = this.#redirections;
    this.#words = [];
    this.#redirections = [];
    if (words.length > 0 || redirections.some((r) => r.writes)) {
      this.#sink.commands.push({ words, redirections, origin: this.#origin });
    }
  }

  #readHeredocs(): void {
    const src = this.src;
    for (const doc of this.#heredocs) {
      let body = '';
      let closed = false;
      while (this.i < src.length) {
        let end = src.indexOf('\n', this.i);
        if (end === -1) end = src.length;
        const line = src.slice(this.i, end);
        this.i = Math.min(end + 1, src.length);
        const compared = doc.stripTabs ? line.replace(/^\t+/, '') : line;
        if (compared === doc.delimiter) {
          closed = true;
          break;
        }
        body += `${line}\n`;
      }
      if (!closed) this.problem(`the here-document "${doc.delimiter}" is not terminated`);
      if (!doc.quoted) {
        // An unquoted here-document expands `$(…)` and backticks in its body.
        this.#expandHeredoc(body);
      }
    }
    this.#heredocs = [];
  }

  /** An unquoted here-document body: its substitutions run, one level deeper. */
  #expandHeredoc(body: string): void {
    const inner = new Parser(body, this.#sink, this.depth + 1, 'heredoc');
    inner.scanDoubleQuoted(false);
  }
}
