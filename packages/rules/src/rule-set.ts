import { relativeWithSlash, skippedByClaude } from './claude-differences.js';
import { type CommandPattern, commandPattern, firstWord, pathPattern, simpleGlob } from './internal/patterns.js';
import { kindOf, type PermissionRule, type RuleList } from './rule.js';
import { RUNTIME_ARGUMENT, type ShellCommand } from './shell-split.js';
import type { Anchors, RuleSubject } from './subject.js';

/** Where a rule came from: a settings file and line, the plugin's options, or a remembered grant. */
export interface RuleOrigin {
  /** `options`, `grant`, or the settings file as shown to users (`.claude/settings.json`, `~/.claude/settings.json`). */
  readonly source: string;
  /** The settings file's absolute path. */
  readonly file?: string;
  /** The 1-based line of the rule in its settings file. */
  readonly line?: number;
  /** The grant's id, for a remembered approval. */
  readonly grant?: string;
}

/** A rule with the list it is in and where it came from. */
export interface SourcedRule {
  readonly rule: PermissionRule;
  readonly list: RuleList;
  readonly origin: RuleOrigin;
}

/** A rule that applies to a call, and the part of the call it matched (a command, a path). */
export interface RuleMatch {
  readonly rule: SourcedRule;
  readonly target?: string;
}

/** Which rules allow a call, or which of its commands none allows. */
export interface Coverage {
  readonly covered: boolean;
  /** The allow rules (and grants) that cover the call's parts, in the order they were found. */
  readonly by: readonly SourcedRule[];
  /** For Bash: the commands no rule allows, as written. */
  readonly uncovered: readonly string[];
}

interface Compiled {
  readonly sourced: SourcedRule;
  readonly order: number;
  readonly whole: boolean;
  readonly command?: CommandPattern;
  /** The specifier holds shell operators: it is also tried against the whole line. */
  readonly compound?: boolean;
  /** The specifier spells out a `>`: only such a rule allows a command that writes files through redirections. */
  readonly redirects?: boolean;
  readonly path?: (absolute: string) => boolean;
  readonly value?: (value: string) => boolean;
}

interface Bucket {
  readonly whole: Compiled[];
  readonly byKey: Map<string, Compiled[]>;
  readonly loose: Compiled[];
  readonly compound: Compiled[];
}

type ToolRules = Record<RuleList, Bucket>;

const shellOperators = /[;&|`\n]|\$\(/;

/**
 * A compiled, indexed set of rules: for each call, the rules naming its tool
 * are found once per tool, and Bash rules are indexed by their first word.
 * Rules are read as Claude Code reads them in their list: an allow rule
 * with a wildcard tool name other than `mcp__<server>__*` is skipped; a
 * `Read(path)` deny rule also denies editing that path; a relative deny or
 * ask pattern with a slash (`Edit(docs/**)`) matches at any depth under the
 * project, while the same allow rule matches from `cwd` only.
 */
export class RuleSet {
  readonly rules: readonly SourcedRule[];
  readonly #compiled: readonly Compiled[];
  readonly #anchors: Anchors;
  readonly #byTool = new Map<string, ToolRules>();
  #last: { readonly tool: string; readonly ownName: string; readonly category: string; readonly rules: ToolRules } | undefined;

  constructor(rules: readonly SourcedRule[], anchors: Anchors) {
    this.rules = Object.freeze(rules.slice());
    this.#anchors = anchors;
    this.#compiled = this.rules.flatMap((sourced, order) =>
      skippedByClaude(sourced.rule, sourced.list) ? [] : [compile(sourced, order, anchors)],
    );
  }

  /**
   * The earliest rule of `list` that applies to the subject: any part of it (a command, a path)
   * matching is enough. Each list of a bucket is in rule order, so a scan stops at the first rule
   * that matches, or that comes after the best one found so far.
   */
  firstMatch(list: 'deny' | 'ask', subject: RuleSubject): RuleMatch | undefined {
    const bucket = this.#rulesFor(subject)[list];
    let best: Compiled | undefined = bucket.whole[0];
    let target: string | undefined;
    if (subject.command !== undefined) {
      for (const command of subject.command.commands) {
        let hit = earliestForText(bucket, command.text, best);
        if (command.argvText !== command.text) hit = earliestForText(bucket, command.argvText, hit ?? best) ?? hit;
        for (const alias of command.aliases) hit = earliestForText(bucket, alias, hit ?? best) ?? hit;
        if (hit !== undefined) {
          best = hit;
          target = display(command.text);
        }
      }
      const line = subject.line;
      if (line !== undefined) {
        const hit = earliestCommand(bucket.compound, line, best);
        if (hit !== undefined) {
          best = hit;
          target = line;
        }
      }
    } else {
      for (const c of bucket.loose) {
        if (best !== undefined && c.order >= best.order) break;
        if (specifierMatches(c, subject, 'any')) {
          best = c;
          break;
        }
      }
    }
    if (best === undefined) return undefined;
    return target === undefined ? { rule: best.sourced } : { rule: best.sourced, target };
  }

  /** Whether a deny or ask rule with a specifier names the subject's tool: then a line the scanner cannot read must not pass unasked. */
  hasSpecificDenyOrAsk(subject: RuleSubject): boolean {
    const { deny, ask } = this.#rulesFor(subject);
    return deny.byKey.size > 0 || deny.loose.length > 0 || ask.byKey.size > 0 || ask.loose.length > 0;
  }

  /**
   * The compiled allow rules of this set that name the subject's tool.
   * @internal
   */
  allowBucket(subject: RuleSubject): Bucket {
    return this.#rulesFor(subject).allow;
  }

  #rulesFor(subject: RuleSubject): ToolRules {
    // A decision asks three to four times for one subject's rules: the last answer is kept, keyed by its fields.
    const last = this.#last;
    if (last !== undefined && last.tool === subject.tool && last.ownName === subject.ownName && last.category === subject.category) {
      return last.rules;
    }
    const key = `${subject.tool}\u0000${subject.ownName}\u0000${subject.category}`;
    let rules = this.#byTool.get(key);
    if (rules === undefined) {
      rules = { allow: emptyBucket(), deny: emptyBucket(), ask: emptyBucket() };
      for (const compiled of this.#compiled) {
        if (!namesTool(compiled.sourced.rule, subject) && !readDenyCoversEdit(compiled.sourced, subject)) continue;
        const c = asClaudeKind(compiled, subject, this.#anchors);
        const bucket = rules[c.sourced.list];
        if (c.whole) bucket.whole.push(c);
        else if (c.command !== undefined) {
          if (c.compound) bucket.compound.push(c);
          const k = c.command.key;
          if (k === undefined) bucket.loose.push(c);
          else bucket.byKey.set(k, [...(bucket.byKey.get(k) ?? []), c]);
        } else bucket.loose.push(c);
      }
      this.#byTool.set(key, rules);
    }
    this.#last = { tool: subject.tool, ownName: subject.ownName, category: subject.category, rules };
    return rules;
  }
}

/**
 * Whether the allow rules of `sets` (configured rules, then grants) cover
 * the whole call: for Bash, every command it runs; for file tools, the path
 * both as given and through its symlinks (each part by any rule).
 */
export function coverage(subject: RuleSubject, sets: readonly RuleSet[]): Coverage {
  const buckets = sets.map((s) => s.allowBucket(subject));
  for (const bucket of buckets) {
    const whole = bucket.whole[0];
    if (whole !== undefined) return { covered: true, by: [whole.sourced], uncovered: [] };
  }
  if (subject.command !== undefined) {
    const line = subject.line ?? '';
    for (const bucket of buckets) {
      // A compound rule without wildcards allows exactly the line it spells out.
      const exactLine = bucket.compound.find((c) => c.command?.exact !== undefined && c.command.exact === line);
      if (exactLine !== undefined) return { covered: true, by: [exactLine.sourced], uncovered: [] };
    }
    const by: SourcedRule[] = [];
    const uncovered: string[] = [];
    for (const command of subject.command.commands) {
      if (command.role === 'wrapper') continue;
      const rule = command.exact ? allowingRule(buckets, command) : undefined;
      if (rule === undefined) uncovered.push(display(command.text));
      else if (!by.includes(rule.sourced)) by.push(rule.sourced);
    }
    return { covered: uncovered.length === 0, by: uncovered.length === 0 ? by : [], uncovered };
  }
  const paths = subject.paths;
  if (paths !== undefined) {
    // Each form of the path (as given, through symlinks) must be allowed, by any rule.
    const by: SourcedRule[] = [];
    for (const path of paths) {
      const rule = firstOf(buckets, (c) => (c.path === undefined ? specifierMatches(c, subject, 'all') : c.path(path)));
      if (rule === undefined) return { covered: false, by: [], uncovered: [] };
      if (!by.includes(rule.sourced)) by.push(rule.sourced);
    }
    return { covered: true, by, uncovered: [] };
  }
  const rule = firstOf(buckets, (c) => specifierMatches(c, subject, 'all'));
  return rule === undefined ? { covered: false, by: [], uncovered: [] } : { covered: true, by: [rule.sourced], uncovered: [] };
}

function allowingRule(buckets: readonly Bucket[], command: ShellCommand): Compiled | undefined {
  const writes = command.writes.length > 0;
  for (const bucket of buckets) {
    const rule =
      allowingRuleForText(bucket, command.text, writes) ??
      (command.argvText === command.text ? undefined : allowingRuleForText(bucket, command.argvText, writes));
    if (rule !== undefined) return rule;
  }
  return undefined;
}

/** The first rule of the bucket, those indexed by the text's first word first, that allows the command text. */
function allowingRuleForText(bucket: Bucket, text: string, writes: boolean): Compiled | undefined {
  const keyed = bucket.byKey.get(firstWord(text));
  if (keyed !== undefined) for (const c of keyed) if ((!writes || c.redirects === true) && c.command?.test(text)) return c;
  for (const c of bucket.loose) if ((!writes || c.redirects === true) && c.command?.test(text)) return c;
  return undefined;
}

/** The earliest command rule of the bucket (indexed by the text's first word, or loose) that matches `text` and comes before `before`. */
function earliestForText(bucket: Bucket, text: string, before: Compiled | undefined): Compiled | undefined {
  const keyed = bucket.byKey.get(firstWord(text));
  const hit = keyed === undefined ? undefined : earliestCommand(keyed, text, before);
  return earliestCommand(bucket.loose, text, hit ?? before) ?? hit;
}

/** The first rule of `rules` (in rule order) whose command pattern matches `text`, if it comes before `before`. */
function earliestCommand(rules: readonly Compiled[], text: string, before: Compiled | undefined): Compiled | undefined {
  for (const c of rules) {
    if (before !== undefined && c.order >= before.order) return undefined;
    if (c.command?.test(text)) return c;
  }
  return undefined;
}

function firstOf(buckets: readonly Bucket[], test: (c: Compiled) => boolean): Compiled | undefined {
  for (const bucket of buckets) for (const c of bucket.loose) if (test(c)) return c;
  return undefined;
}

/** Tests a non-command specifier; `any` (deny, ask) needs one path to match, `all` (allow) every path. */
function specifierMatches(c: Compiled, subject: RuleSubject, mode: 'any' | 'all'): boolean {
  if (c.path !== undefined) {
    const paths = subject.paths;
    if (paths === undefined) return false;
    // Loops rather than some/every with a closure: this runs for every path rule of a file call.
    const test = c.path;
    if (mode === 'any') {
      for (const p of paths) if (test(p)) return true;
      return false;
    }
    for (const p of paths) if (!test(p)) return false;
    return true;
  }
  const test = c.value;
  if (test === undefined) return false;
  const kind = c.sourced.rule.kind;
  if (kind === 'domain') return subject.host !== undefined && test(subject.host);
  if (kind === 'agent') return typeof subject.input.subagent_type === 'string' && test(subject.input.subagent_type);
  if (kind === 'skill') {
    const name = skillNameOf(subject.input);
    return name !== undefined && test(name);
  }
  return Object.values(subject.input).some((v) => typeof v === 'string' && test(v));
}

/** Claude Code renamed `Task` to `Agent` and keeps `Task` as an alias: a rule naming either names both. */
const aliases: Readonly<Record<string, string>> = { Task: 'Agent', Agent: 'Task' };

/**
 * Whether a rule's tool name covers the subject's tool: by name (`Task` and
 * `Agent` are one tool), by category (`Edit` every editing tool, `Read`
 * every reading tool) or by MCP server.
 */
export function namesTool(rule: PermissionRule, subject: Pick<RuleSubject, 'tool' | 'ownName' | 'category'>): boolean {
  const name = rule.tool;
  if (name === subject.tool || name === subject.ownName) return true;
  const alias = aliases[name];
  if (alias !== undefined && (alias === subject.tool || alias === subject.ownName)) return true;
  if (name === 'Edit' && subject.category === 'edit') return true;
  if (name === 'Read' && subject.category === 'read') return true;
  if (!name.startsWith('mcp__')) return false;
  const test = (candidate: string): boolean => {
    if (!candidate.startsWith('mcp__')) return false;
    if (name.includes('*')) return simpleGlob(name)(candidate);
    // `mcp__server` names every tool of that server.
    return name.indexOf('__', 5) === -1 && candidate.startsWith(`${name}__`);
  };
  return test(subject.tool) || test(subject.ownName);
}

/** A `Read(path)` deny rule also denies editing that path, as Claude Code does since 2.1.208 (Edit) and 2.1.228 (Write): what may not be read may not be overwritten either. */
function readDenyCoversEdit(sourced: SourcedRule, subject: Pick<RuleSubject, 'category'>): boolean {
  return sourced.list === 'deny' && sourced.rule.tool === 'Read' && sourced.rule.kind === 'path' && subject.category === 'edit';
}

/** The skill a `Skill` call loads, without the leading `/` older versions sent. */
function skillNameOf(input: Readonly<Record<string, unknown>>): string | undefined {
  const value = [input.skill, input.command, input.name].find((v): v is string => typeof v === 'string' && v !== '');
  return value?.replace(/^\//, '');
}

/**
 * A `Skill` specifier as a test on the skill's name: `deploy`, `deploy:*`
 * and `deploy *` all name the skill `deploy`, with any arguments; `*`
 * elsewhere is a glob over names (`deploy-*`).
 */
function skillPattern(specifier: string): (name: string) => boolean {
  const base = specifier.replace(/(?::\*| \*)$/, '').trim();
  return simpleGlob(base === '' ? '*' : base);
}

/**
 * A rule naming a tool by its dsh name (`bash(rm *)`) reads its specifier
 * the way the tool's Claude Code name would (`Bash(rm *)`), so it cannot be
 * a weaker, plain glob over the arguments.
 */
function asClaudeKind(c: Compiled, subject: RuleSubject, anchors: Anchors): Compiled {
  const rule = c.sourced.rule;
  if (rule.specifier === undefined || rule.tool !== subject.ownName || rule.tool === subject.tool) return c;
  const kind = kindOf(subject.tool);
  if (kind === rule.kind) return c;
  return compile({ ...c.sourced, rule: { ...rule, kind } }, c.order, anchors);
}

function compile(sourced: SourcedRule, order: number, anchors: Anchors): Compiled {
  const { specifier, kind } = sourced.rule;
  if (specifier === undefined || kind === undefined) return { sourced, order, whole: true };
  switch (kind) {
    case 'command':
      return {
        sourced,
        order,
        whole: false,
        command: commandPattern(specifier),
        compound: shellOperators.test(specifier),
        redirects: specifier.includes('>'),
      };
    case 'path': {
      const path = pathPattern(specifier, anchors);
      if (sourced.list === 'allow' || !relativeWithSlash(specifier)) return { sourced, order, whole: false, path };
      // Deny and ask: `docs/**` also matches `nested/docs/…` anywhere under the project, as Claude Code documents.
      const anyDepth = pathPattern(`/**/${specifier}`, anchors);
      return { sourced, order, whole: false, path: (absolute) => path(absolute) || anyDepth(absolute) };
    }
    case 'skill':
      return { sourced, order, whole: false, value: skillPattern(specifier) };
    case 'domain':
      return { sourced, order, whole: false, value: simpleGlob(specifier.slice('domain:'.length).toLowerCase(), 'i') };
    default:
      return { sourced, order, whole: false, value: simpleGlob(specifier) };
  }
}

function emptyBucket(): Bucket {
  return { whole: [], byKey: new Map(), loose: [], compound: [] };
}

/** A command text for people: run-time arguments shown as `…`. */
export function display(text: string): string {
  return text.includes(RUNTIME_ARGUMENT) ? text.replaceAll(RUNTIME_ARGUMENT, '…') : text;
}
