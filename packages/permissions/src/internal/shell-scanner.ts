import { decodeAnsiEscape } from './ansi-c.js';

/**
 * A static scanner for POSIX/bash command lines: finds every simple command
 * that would run, including those inside `$(…)`, backticks, `<(…)`, `>(…)`,
 * subshells, groups, control structures and unquoted here-documents. It
 * never runs or expands anything; where it meets something it cannot read
 * statically it records a problem, so callers can refuse to allow the line.
 */

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

/** Where a command was found. */
export type CommandOrigin = 'top' | 'substitution' | 'process-substitution' | 'heredoc';

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

const maxDepth = 16;
const prefixWords = new Set(['if', 'then', 'elif', 'else', 'do', 'while', 'until', '!', '{', 'time', 'coproc']);
const closingWords = new Set(['fi', 'done', '}']);
const assignment = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const operatorChars = new Set([';', '&', '|', '(', ')']);

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

class Parser {
  i = 0;
  readonly #src: string;
  readonly #sink: ScanSink;
  readonly #depth: number;
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
    this.#src = src;
    this.#sink = sink;
    this.#depth = depth;
    this.#origin = origin;
  }

  #problem(message: string): void {
    this.#sink.problems.push(message);
  }

  /** Parses commands until the end of input or, with `closeParen`, the unmatched `)` that ends a substitution. */
  parseList(closeParen: boolean): void {
    const src = this.#src;
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
        this.#word(this.#readWord());
      }
    }
    this.#flush();
    if (this.#heredocs.length > 0) this.#problem('a here-document is not terminated');
    if (closeParen) this.#problem('a "$(" or "<(" is not closed');
    if (this.#subshells > 0) this.#problem('a "(" is not closed');
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
    this.#problem('a ")" has no matching "("');
    return false;
  }

  #operator(c: string): void {
    const src = this.#src;
    const next = src[this.i + 1];
    if (c === '(') {
      if (next === '(' && this.#atCommandStart()) {
        this.i += 2;
        this.#skipArithmetic();
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
      this.#problem('an unexpected "(" in the middle of a command');
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
    const src = this.#src;
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
    const src = this.#src;
    const start = this.i;
    while (this.i < src.length && /[0-9]/.test(src[this.i] as string)) this.i += 1;
    if (src[this.i] === '{') this.i = src.indexOf('}', this.i) + 1;
    const ops = ['<<<', '<<-', '&>>', '<<', '<>', '<&', '>>', '>|', '>&', '&>', '<', '>'];
    const op = ops.find((o) => src.startsWith(o, this.i)) ?? '>';
    this.i += op.length;
    const opText = src.slice(start, this.i);
    while (src[this.i] === ' ' || src[this.i] === '\t') this.i += 1;
    if (this.i >= src.length || '\n;&|()<>'.includes(src[this.i] as string)) {
      this.#problem(`the redirection "${opText}" has no target`);
      return;
    }
    const target = this.#readWord();
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
    if (this.#words.length === 0 && assignment.test(word.raw)) return;
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
    const src = this.#src;
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
      if (!closed) this.#problem(`the here-document "${doc.delimiter}" is not terminated`);
      if (!doc.quoted) {
        // An unquoted here-document expands `$(…)` and backticks in its body.
        const inner = new Parser(body, this.#sink, this.#depth + 1, 'heredoc');
        inner.#scanDoubleQuoted(false);
      }
    }
    this.#heredocs = [];
  }

  /** Reads one word, extracting every substitution inside it. */
  #readWord(): Word {
    const src = this.#src;
    const start = this.i;
    let value = '';
    let quoted = false;
    let expanded = false;
    let glob = false;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') break;
      if (c === '(' && /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/.test(src.slice(start, this.i))) {
        // `name=( … )`: an array assignment.
        this.i += 1;
        value += `(${this.#skipBalanced()})`;
        continue;
      }
      if (operatorChars.has(c)) break;
      if (c === '<' || c === '>') {
        if (src[this.i + 1] !== '(') break;
        this.i += 2;
        const from = this.i - 2;
        this.#substitution('process-substitution');
        value += src.slice(from, this.i);
        expanded = true;
        continue;
      }
      if (c === '\\') {
        const next = src[this.i + 1];
        this.i += 2;
        if (next === '\n' || next === undefined) continue;
        value += next;
        quoted = true;
        continue;
      }
      if (c === "'") {
        const end = src.indexOf("'", this.i + 1);
        if (end === -1) {
          this.#problem('a single quote is not closed');
          value += src.slice(this.i + 1);
          this.i = src.length;
        } else {
          value += src.slice(this.i + 1, end);
          this.i = end + 1;
        }
        quoted = true;
        continue;
      }
      if (c === '"') {
        this.i += 1;
        const inner = this.#scanDoubleQuoted(true);
        value += inner.value;
        expanded ||= inner.expanded;
        quoted = true;
        continue;
      }
      if (c === '$' && src[this.i + 1] === "'") {
        this.i += 2;
        value += this.#readAnsiC();
        quoted = true;
        continue;
      }
      if (c === '$' && src[this.i + 1] === '"') {
        this.i += 2;
        const inner = this.#scanDoubleQuoted(true);
        value += inner.value;
        expanded ||= inner.expanded;
        quoted = true;
        continue;
      }
      if (c === '$' || c === '`') {
        const expansion = this.#readExpansion();
        value += expansion;
        expanded ||= expansion !== '$';
        continue;
      }
      // `[` and `?` glob; `{a,b}` is brace expansion: either way the word is not known statically.
      if (c === '*' || c === '?' || c === '[' || (c === '{' && this.i > start)) glob = true;
      if (c === '{' && this.i === start && /^\{[^\s]*(,|\.\.)[^\s]*\}/.test(src.slice(this.i, this.i + 256))) glob = true;
      value += c;
      this.i += 1;
    }
    return { raw: src.slice(start, this.i), value, quoted, expanded, glob };
  }

  /** Reads `$…` or a backtick substitution at `i`; returns its source text (`$` alone when literal). */
  #readExpansion(): string {
    const src = this.#src;
    const from = this.i;
    if (src[this.i] === '`') {
      this.#backtick();
      return src.slice(from, this.i);
    }
    const next = src[this.i + 1];
    if (next === '(') {
      if (src[this.i + 2] === '(') {
        this.i += 3;
        this.#skipArithmetic();
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

  /** Scans double-quoted text (or, with `quote` false, a here-document body to its end). */
  #scanDoubleQuoted(quote: boolean): { value: string; expanded: boolean } {
    const src = this.#src;
    let value = '';
    let expanded = false;
    while (this.i < src.length) {
      const c = src[this.i] as string;
      if (quote && c === '"') {
        this.i += 1;
        return { value, expanded };
      }
      if (c === '\\') {
        const next = src[this.i + 1];
        if (next !== undefined && '$`"\\\n'.includes(next)) {
          if (next !== '\n') value += next;
          this.i += 2;
        } else {
          value += '\\';
          this.i += 1;
        }
        continue;
      }
      if (c === '$' || c === '`') {
        const expansion = this.#readExpansion();
        value += expansion;
        expanded ||= expansion !== '$';
        continue;
      }
      value += c;
      this.i += 1;
    }
    if (quote) this.#problem('a double quote is not closed');
    return { value, expanded };
  }

  #readAnsiC(): string {
    const src = this.#src;
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
    this.#problem("a $'…' quote is not closed");
    return value;
  }

  /** Parses a `$(…)`, `<(…)` or `>(…)` body (after its opening) up to and including its `)`. */
  #substitution(origin: CommandOrigin): void {
    if (this.#depth >= maxDepth) {
      this.#problem('substitutions are nested too deeply to check');
      this.i = this.#src.length;
      return;
    }
    const inner = new Parser(this.#src, this.#sink, this.#depth + 1, origin);
    inner.i = this.i;
    inner.parseList(true);
    this.i = inner.i;
  }

  #backtick(): void {
    const src = this.#src;
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
    if (!closed) this.#problem('a backtick substitution is not closed');
    if (this.#depth >= maxDepth) {
      this.#problem('substitutions are nested too deeply to check');
      return;
    }
    new Parser(body, this.#sink, this.#depth + 1, 'substitution').parseList(false);
  }

  /** Skips `${…}`, extracting substitutions inside it. */
  #skipParameter(): void {
    if (!this.#skipNested('{', '}')) this.#problem('a "${" is not closed');
  }

  /** Skips an arithmetic expression after `((` or `$((`, up to its `))`, extracting substitutions. */
  #skipArithmetic(): void {
    const src = this.#src;
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
          this.#problem('an arithmetic expression is not closed with "))"');
          this.i += 1;
          return;
        }
      } else if (c === '$' || c === '`') {
        this.#readExpansion();
      } else if (c === '"') {
        this.i += 1;
        this.#scanDoubleQuoted(true);
      } else if (c === "'") {
        const end = src.indexOf("'", this.i + 1);
        this.i = end === -1 ? src.length : end + 1;
      } else {
        this.i += 1;
      }
    }
    this.#problem('an arithmetic expression is not closed with "))"');
  }

  /** Skips to the `)` that closes an array assignment, extracting substitutions; returns the text inside. */
  #skipBalanced(): string {
    const from = this.i;
    if (this.#skipNested('(', ')')) return this.#src.slice(from, this.i - 1);
    this.#problem('an array assignment is not closed');
    return this.#src.slice(from);
  }

  /**
   * Skips to the `close` that balances an `open` already read, past quotes and escapes, extracting
   * the substitutions on the way; false when the text ends first.
   */
  #skipNested(open: string, close: string): boolean {
    const src = this.#src;
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
        this.#scanDoubleQuoted(true);
      } else if (c === '$' || c === '`') {
        this.#readExpansion();
      } else {
        this.i += 1;
      }
    }
    return false;
  }
}
