import type { ApprovalAnswer, ApprovalReply, ApprovalRequest } from '@deepseek-ai/dsh-core';
import type { RuleSubject } from '@deepseek-ai/dsh-rules';
import { formatRule, RUNTIME_ARGUMENT } from '@deepseek-ai/dsh-rules';
import type { PermissionDecision } from './decide.js';
import type { GrantScope } from './grants.js';

/** Rules an approval could be remembered as, with a label for the prompt. */
export interface GrantSuggestion {
  readonly label: string;
  /** Allow rules in Claude Code's syntax; all of them together cover the call. */
  readonly rules: readonly string[];
}

/** What the permission prompt is asked: core's request plus the decision and what may be remembered. */
export interface PermissionPromptRequest extends ApprovalRequest {
  /** Why the call was put to approval; absent when the permissions tap did not see it. */
  readonly decision: PermissionDecision | undefined;
  /**
   * The scopes an approval may be remembered in, and suggested rules, most
   * specific first. Empty scopes: remembering is not offered (an ask rule or
   * another tap asked, and no grant would ever override that).
   */
  readonly remember: { readonly scopes: readonly GrantScope[]; readonly suggestions: readonly GrantSuggestion[] };
}

/** Allow this call and remember it for the session or the project, as the given rules (the first suggestion by default). */
export interface RememberReply {
  readonly answer: 'allowed-session' | 'allowed-project';
  readonly rules?: readonly string[];
}

/** An answer of the permission prompt: any core answer, or one that is remembered. */
export type PermissionPromptReply = ApprovalAnswer | ApprovalReply | RememberReply;

/**
 * Asks the user about a call; may answer "allow for the session" or "for the project".
 * As with core's `ApprovalProvider`, the promise may hold any string so that
 * `async () => 'allowed-session'` type-checks; an unknown answer denies the call.
 */
export type PermissionPrompt = (request: PermissionPromptRequest) => PermissionPromptReply | Promise<PermissionPromptReply | (string & {})>;

/**
 * Suggests rules that would allow this call next time: for Bash the exact
 * commands not yet allowed, then their two-word prefixes; for file tools the
 * file, then its directory; for WebFetch the host; otherwise the tool.
 */
export function suggestGrants(subject: RuleSubject, decision: PermissionDecision | undefined): GrantSuggestion[] {
  if (subject.command !== undefined) {
    const commands = subject.command.commands.filter((c) => c.role === 'command');
    const uncovered = new Set(decision?.uncovered ?? []);
    const wanted = commands.filter((c) => uncovered.size === 0 || uncovered.has(c.text.replaceAll(RUNTIME_ARGUMENT, '…')));
    if (wanted.length === 0 || wanted.some((c) => !c.exact)) return [];
    const exact = wanted.every((c) => !c.argvText.includes(RUNTIME_ARGUMENT));
    const suggestions: GrantSuggestion[] = [];
    if (exact) {
      suggestions.push({ label: 'exactly this command', rules: unique(wanted.map((c) => formatRule('Bash', escapeStars(c.text)))) });
    }
    // A prefix rule never covers redirections that write files, so none is offered for such a command.
    if (wanted.every((c) => c.writes.length === 0)) {
      const prefixes = unique(wanted.map((c) => formatRule('Bash', `${prefixOf(c.argv)} *`)));
      suggestions.push({ label: `commands starting with ${prefixes.map((p) => p.slice(5, -3)).join(', ')}`, rules: prefixes });
    }
    return suggestions;
  }
  if (subject.paths !== undefined && (subject.category === 'read' || subject.category === 'edit')) {
    const tool = subject.category === 'edit' ? 'Edit' : 'Read';
    const path = subject.paths[0] as string;
    const dir = path.slice(0, path.lastIndexOf('/')) || '/';
    return [
      { label: 'this file', rules: [formatRule(tool, `/${escapeGlob(path)}`)] },
      { label: `everything under ${dir}`, rules: [formatRule(tool, `/${escapeGlob(dir)}/**`)] },
    ];
  }
  if (subject.host !== undefined)
    return [{ label: `fetches from ${subject.host}`, rules: [formatRule('WebFetch', `domain:${subject.host}`)] }];
  return [{ label: `every use of ${subject.tool}`, rules: [subject.tool] }];
}

function prefixOf(argv: readonly string[]): string {
  const [program = '', second] = argv;
  const words = second !== undefined && /^[A-Za-z0-9][\w:.-]*$/.test(second) ? [program, second] : [program];
  return escapeStars(words.join(' '));
}

function escapeStars(text: string): string {
  return text.replaceAll('*', '\\*');
}

function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, '\\$&');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
