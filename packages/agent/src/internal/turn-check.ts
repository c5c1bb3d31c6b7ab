import type { AssistantTurn, Usage } from '../model.js';

const stops = new Set(['end', 'tool-use', 'max-tokens', 'refusal', 'other']);

/** What is wrong with a turn a model function returned, if anything: a custom model may return anything. */
export function turnProblem(turn: AssistantTurn): string | undefined {
  if (typeof turn !== 'object' || turn === null) return 'not an object';
  if (typeof turn.text !== 'string') return '"text" must be a string';
  if (!Array.isArray(turn.calls)) return '"calls" must be an array';
  if (!stops.has(turn.stop)) return `"stop" must be one of ${[...stops].join(', ')}`;
  for (const [i, call] of turn.calls.entries()) {
    if (typeof call?.id !== 'string' || call.id === '') return `calls.${i}.id must be a non-empty string`;
    if (typeof call.name !== 'string') return `calls.${i}.name must be a string`;
    if (typeof call.args !== 'string') return `calls.${i}.args must be JSON text`;
  }
  return undefined;
}

const optionalCounts = ['cachedInputTokens', 'cacheWriteInputTokens', 'reasoningTokens'] as const;

/** The sum of two usages; optional counts are kept when either side has them. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  for (const key of optionalCounts) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  return sum;
}
