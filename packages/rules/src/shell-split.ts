import { type RawCommand, type ScanSink, scanShell } from './internal/shell-scanner.js';
import type { Word } from './internal/shell-words.js';

/**
 * Stands for arguments a wrapper adds at run time (`xargs`' input, `find`'s
 * `{}`): a `*` in a rule matches it, literal rule text never does.
 */
export const RUNTIME_ARGUMENT = '\u0000';

/** How a command was reached in the line. */
export type CommandVia = 'top' | 'substitution' | 'process-substitution' | 'heredoc' | 'wrapper' | 'shell-string';

/** One command of a command line, as permission rules see it. */
export interface ShellCommand {
  /**
   * The command as written, normalised: leading `VAR=value` assignments and
   * harmless redirections (`2>&1`, `>/dev/null`, here-documents) dropped,
   * words joined by one space, quotes kept.
   */
  readonly text: string;
  /** The words after quote removal, then the redirections that touch files (`> out.txt`), joined by one space. */
  readonly argvText: string;
  /** The words after quote removal. Expansions stay as written (`$HOME`). */
  readonly argv: readonly string[];
  /** Forms only deny and ask rules look at: the program's basename (`/bin/rm -rf` → `rm -rf`). */
  readonly aliases: readonly string[];
  readonly via: CommandVia;
  /** Files its redirections write or truncate (`> out.txt` gives `out.txt`); an allow rule must spell out a `>` to cover them. */
  readonly writes: readonly string[];
  /**
   * `command`: it must be allowed for the line to be allowed. `wrapper`: a
   * transparent wrapper (`timeout 5 …`, `bash -c '…'`) whose inner commands
   * are listed separately; deny and ask rules still see it.
   */
  readonly role: 'command' | 'wrapper';
  /** False when what runs cannot be known statically (`$CMD args`, `eval "$x"`): only a rule for every command can allow it. */
  readonly exact: boolean;
}

/** A command line split into the commands it runs. */
export interface SplitCommand {
  readonly commands: readonly ShellCommand[];
  /** False when the line has something the scanner cannot read statically; `problems` says what. */
  readonly complete: boolean;
  readonly problems: readonly string[];
}

const maxUnwrap = 8;
const shells = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'yash']);

/**
 * Splits a shell command line into every command it would run: the parts of
 * `&&`, `||`, `;`, `|`, `&` and newlines, the bodies of `$(…)`, backticks,
 * `<(…)`, subshells, groups, `if`/`while`/`for`/`case`, unquoted
 * here-documents, and the commands behind wrappers (`timeout`, `nice`,
 * `nohup`, `env`, `sudo`, `xargs`, `find -exec`, `bash -c`, `eval`).
 * Nothing is executed or expanded.
 */
export function splitCommand(line: string): SplitCommand {
  const cached = recent.get(line) ?? older.get(line);
  if (cached !== undefined) return cached;
  const split = splitFresh(line);
  if (recent.size >= cacheGeneration) {
    older = recent;
    recent = new Map();
  }
  recent.set(line, split);
  return split;
}

/**
 * Recently split lines, in two generations of up to 256 each (so at least the last 256 lines are
 * kept): a call is split by the tap and again by the guard and the approval. A generation is dropped
 * whole, never entry by entry: with the oldest key deleted on every new line, V8 promoted nearly
 * every split to the old generation (the heap grew ~4 MB per scavenge, each scavenge took ~10× as
 * long), and the collector cost twice the split itself (bench/per-call.mjs).
 */
const cacheGeneration = 256;
let recent = new Map<string, SplitCommand>();
let older = new Map<string, SplitCommand>();

function splitFresh(line: string): SplitCommand {
  const sink: ScanSink = { commands: [], problems: [] };
  scanShell(line, sink);
  const commands: ShellCommand[] = [];
  for (const raw of sink.commands) addCommand(raw, raw.origin === 'top' ? 'top' : raw.origin, commands, sink.problems, 0);
  const complete = sink.problems.length === 0;
  if (!complete || commands.length === 0) {
    // What could not be read (or a line with no command at all) is one more
    // command that no specific rule can allow.
    const trimmed = collapse(line);
    commands.push(
      freeze({ text: trimmed, argvText: trimmed, argv: [trimmed], aliases: [], via: 'top', writes: [], role: 'command', exact: false }),
    );
  }
  return Object.freeze({ commands: Object.freeze(commands), complete, problems: Object.freeze(sink.problems.slice()) });
}

function addCommand(raw: RawCommand, via: CommandVia, out: ShellCommand[], problems: string[], depth: number): void {
  const words = raw.words;
  // One pass over the words and the redirections that touch files: the texts, argv and the files written.
  const argv: string[] = [];
  const rawParts: string[] = [];
  for (const w of words) {
    argv.push(w.value);
    rawParts.push(w.raw);
  }
  let argvParts = argv;
  const writes: string[] = [];
  for (const r of raw.redirections) {
    if (r.harmless) continue;
    if (argvParts === argv) argvParts = argv.slice();
    rawParts.push(r.op, r.target.raw);
    argvParts.push(r.op, r.target.value);
    if (r.writes) writes.push(r.target.value);
  }
  const text = rawParts.join(' ');
  const argvText = argvParts.join(' ');
  const program = words[0];
  const exact = program === undefined || !(program.expanded || program.glob);
  const aliases: string[] = [];
  if (program?.value.includes('/')) {
    const base = basename(program.value);
    if (base !== '') aliases.push([base, ...argv.slice(1)].join(' '));
  }
  let unwrapped: Unwrapped | undefined;
  if (exact && program !== undefined) {
    if (depth >= maxUnwrap) problems.push('wrappers are nested too deeply to check');
    else unwrapped = unwrap(words, argv);
  }
  const role = unwrapped === undefined || unwrapped.kind === 'runs' ? 'command' : 'wrapper';
  out.push(freeze({ text, argvText, argv: freeze(argv), aliases: freeze(aliases), via, writes: freeze(writes), role, exact }));
  if (unwrapped === undefined) return;
  if (unwrapped.kind !== 'script') {
    // The wrapper's own redirections apply to what it runs.
    addCommand({ words: unwrapped.words, redirections: raw.redirections, origin: raw.origin }, 'wrapper', out, problems, depth + 1);
    return;
  }
  if (!unwrapped.literal) {
    const script = unwrapped.script;
    out.push(
      freeze({
        text: script,
        argvText: script,
        argv: [script],
        aliases: [],
        via: 'shell-string',
        writes: [],
        role: 'command',
        exact: false,
      }),
    );
    return;
  }
  const sink: ScanSink = { commands: [], problems: [] };
  scanShell(unwrapped.script, sink, depth + 1);
  problems.push(...sink.problems);
  for (const inner of sink.commands) addCommand(inner, 'shell-string', out, problems, depth + 1);
}

type Unwrapped =
  | { readonly kind: 'transparent' | 'runs'; readonly words: readonly Word[] }
  | { readonly kind: 'script'; readonly script: string; readonly literal: boolean };

/** Options of wrappers that take a separate argument (a map, so that `constructor` or `toString` is no wrapper). */
const optionArguments: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>(
  Object.entries({
    timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
    nice: new Set(['-n', '--adjustment']),
    ionice: new Set(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata']),
    stdbuf: new Set(['-i', '-o', '-e']),
    time: new Set(['-f', '-o', '--format', '--output']),
    env: new Set(['-u', '-C', '--unset', '--chdir']),
    exec: new Set(['-a']),
    sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R', '--user', '--group', '--chdir', '--host', '--prompt']),
    doas: new Set(['-u', '-C']),
    xargs: new Set(['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--replace']),
    watch: new Set(['-n', '--interval', '-d', '--differences']),
    setsid: new Set(),
    nohup: new Set(),
    command: new Set(),
    builtin: new Set(),
  }),
);

const transparent = new Set(['timeout', 'nice', 'ionice', 'stdbuf', 'time', 'env', 'exec', 'setsid', 'nohup', 'command', 'builtin']);

/** What a wrapper runs; `argv` is the words' values. */
function unwrap(words: readonly Word[], argv: readonly string[]): Unwrapped | undefined {
  const name = basename(argv[0] ?? '');
  if (shells.has(name)) return shellScript(words);
  if (name === 'eval') {
    const rest = words.slice(1);
    if (rest.length === 0) return undefined;
    return { kind: 'script', script: rest.map((w) => w.value).join(' '), literal: rest.every((w) => !w.expanded) };
  }
  if (name === 'find') return findExec(words);
  const options = optionArguments.get(name);
  if (options === undefined) return undefined;
  let i = 1;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--') {
      i += 1;
      break;
    }
    if (name === 'env' && (arg === '-S' || arg === '--split-string')) {
      const script = words[i + 1];
      return script === undefined ? undefined : { kind: 'script', script: script.value, literal: !script.expanded };
    }
    if (arg.startsWith('-') && arg.length > 1) {
      i += options.has(arg) ? 2 : 1;
      continue;
    }
    if ((name === 'env' || name === 'sudo') && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      i += 1;
      continue;
    }
    break;
  }
  if (name === 'timeout') i += 1; // the duration
  let inner = words.slice(i);
  if (name === 'watch' && inner.length > 0) {
    // watch hands its arguments to `sh -c`.
    return { kind: 'script', script: inner.map((w) => w.value).join(' '), literal: inner.every((w) => !w.expanded) };
  }
  if (name === 'xargs') {
    if (inner.length === 0) inner = [literalWord('echo')];
    inner = [...inner, literalWord(RUNTIME_ARGUMENT)];
  }
  if (inner.length === 0) return undefined;
  return { kind: transparent.has(name) ? 'transparent' : 'runs', words: inner };
}

function shellScript(words: readonly Word[]): Unwrapped | undefined {
  for (let i = 1; i < words.length; i += 1) {
    const arg = (words[i] as Word).value;
    if (arg === '--' || !arg.startsWith('-')) return undefined;
    if (!arg.startsWith('--') && arg.slice(1).includes('c')) {
      const script = words[i + 1];
      if (script === undefined) return undefined;
      return { kind: 'script', script: script.value, literal: !script.expanded };
    }
  }
  return undefined;
}

function findExec(words: readonly Word[]): Unwrapped | undefined {
  const start = words.findIndex((w) => ['-exec', '-execdir', '-ok', '-okdir'].includes(w.value));
  if (start === -1) return undefined;
  const inner: Word[] = [];
  for (const w of words.slice(start + 1)) {
    if (w.value === ';' || w.value === '+') break;
    inner.push(w.value === '{}' ? literalWord(RUNTIME_ARGUMENT) : w);
  }
  return inner.length === 0 ? undefined : { kind: 'runs', words: inner };
}

function literalWord(value: string): Word {
  return { raw: value, value, quoted: false, expanded: false, glob: false };
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Collapses runs of whitespace to one space and trims. */
export function collapse(text: string): string {
  return isCollapsed(text) ? text : text.replace(/\s+/g, ' ').trim();
}

/**
 * Whether `text` has nothing to collapse: single ASCII spaces between non-space characters, which
 * most command lines are. Conservative: any other whitespace, or any non-ASCII character (some are
 * spaces to `\s`), takes the pattern.
 */
function isCollapsed(text: string): boolean {
  const last = text.length - 1;
  for (let k = 0; k <= last; k += 1) {
    const code = text.charCodeAt(k);
    if (code === 32) {
      if (k === 0 || k === last || text.charCodeAt(k + 1) === 32) return false;
    } else if ((code >= 9 && code <= 13) || code > 127) return false;
  }
  return true;
}

function freeze<T extends object>(value: T): T {
  return Object.freeze(value);
}
