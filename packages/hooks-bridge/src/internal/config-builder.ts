import type { HookConfigProblem, HookDialect, HookPhase, HookSpec, PostOutcomeFilter } from '../hook-spec.js';

/** The facts of one hook before it gets its place in configuration order. */
export type HookDraft = Omit<HookSpec, 'order'>;

/** Collects hooks and problems while one source is read. */
export class ConfigBuilder {
  readonly hooks: HookDraft[] = [];
  readonly problems: HookConfigProblem[] = [];
  readonly source: string;
  readonly dialect: HookDialect;

  constructor(source: string, dialect: HookDialect) {
    this.source = source;
    this.dialect = dialect;
  }

  problem(entry: string, message: string, phase?: HookPhase): void {
    this.problems.push(phase === undefined ? { source: this.source, entry, message } : { source: this.source, entry, message, phase });
  }

  add(hook: HookDraft): void {
    this.hooks.push(hook);
  }
}

/** The tool events a dialect names, with the phase and outcomes each fires on. */
export interface EventKind {
  readonly phase: HookPhase;
  readonly on: PostOutcomeFilter;
}

/**
 * Walks a dialect's `hooks` object: every known tool event whose value is an
 * array gets `visit` with its entries; an unusable `hooks` object or event
 * value becomes a problem naming it, and unknown (non-tool) events are skipped.
 */
export function forEachToolEvent<K extends EventKind>(
  hooks: unknown,
  events: Readonly<Record<string, K>>,
  builder: ConfigBuilder,
  where: string,
  listOf: string,
  visit: (event: string, kind: K, entries: readonly unknown[], at: string) => void,
): void {
  if (hooks === undefined) return;
  if (!isObject(hooks)) {
    builder.problem(where, '"hooks" must be an object of event names');
    return;
  }
  for (const [event, entries] of Object.entries(hooks)) {
    const kind = events[event];
    if (kind === undefined) continue;
    const at = `${where}.${event}`;
    if (!Array.isArray(entries)) {
      builder.problem(at, `must be an array of ${listOf}`, kind.phase);
      continue;
    }
    visit(event, kind, entries, at);
  }
}

/** Formats a zod issue list as one line naming the field. */
export function issueText(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const issue = issues[0];
  if (issue === undefined) return 'invalid';
  const path = issue.path.map(String).join('.');
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
