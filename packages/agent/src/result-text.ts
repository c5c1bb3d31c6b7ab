import { type CallResult, exactJsonText, isToolContent, outcomeText } from '@deepseek-ai/dsh-core';
import { partsText } from './content.js';
import type { ToolResultEntry } from './messages.js';

/**
 * The one result entry the model gets for a call: the output as text for
 * `ok`, otherwise the code and the reason, so a denial reads as a denial.
 */
export function resultEntry(id: string, result: CallResult): ToolResultEntry {
  const { outcome } = result;
  if (outcome.status === 'ok' && isToolContent(outcome.output)) {
    // Media parts stay parts; the text beside them names each one, for providers that take none.
    return { id, name: result.name, status: 'ok', content: partsText(outcome.output.parts), isError: false, parts: outcome.output.parts };
  }
  return {
    id,
    name: result.name,
    status: result.outcome.status,
    content: outcomeText(result.outcome),
    isError: result.outcome.status !== 'ok',
  };
}

/** The text the model reads for an outcome (core's, which the framework bridges share). */
export { outcomeText } from '@deepseek-ai/dsh-core';

/** @deprecated Use `exactJsonText` from `@deepseek-ai/dsh-core`; this is the same function. */
export const jsonText: (value: unknown) => string = exactJsonText;
