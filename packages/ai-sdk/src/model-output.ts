import { exactJsonText, isToolContent, type JsonValue, type Outcome } from '@deepseek-ai/dsh-core';
import { hasExactNumbers } from './internal/exact-json.js';

/** A tool result as the SDK sends it to the model (`ToolResultOutput` of AI SDK 6 and 7, the kinds used here). */
export type ModelOutput =
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'json'; readonly value: JsonValue }
  | { readonly type: 'execution-denied'; readonly reason?: string }
  | { readonly type: 'error-text'; readonly value: string }
  | {
      readonly type: 'content';
      readonly value: (
        | { readonly type: 'text'; readonly text: string }
        | { readonly type: 'image-data'; readonly data: string; readonly mediaType: string }
        | { readonly type: 'file-data'; readonly data: string; readonly mediaType: string; readonly filename?: string }
      )[];
    };

/**
 * What the model reads for a dsh outcome: the output (text, JSON, or content
 * parts for images and PDFs), `execution-denied` with the reason for a
 * denial, the reason as text for a blocked result, and `CODE: message` for
 * an error.
 */
export function modelOutputOf(outcome: Outcome): ModelOutput {
  switch (outcome.status) {
    case 'ok': {
      const output = outcome.output;
      if (typeof output === 'string') return { type: 'text', value: output };
      if (isToolContent(output)) {
        return {
          type: 'content',
          value: output.parts.map((part) => {
            if (part.type === 'text') return { type: 'text', text: part.text };
            if (part.type === 'image') return { type: 'image-data', data: part.data, mediaType: part.mediaType };
            return part.name === undefined
              ? { type: 'file-data', data: part.data, mediaType: part.mediaType }
              : { type: 'file-data', data: part.data, mediaType: part.mediaType, filename: part.name };
          }),
        };
      }
      // Numbers JSON cannot carry exactly go to the model as text that keeps every digit.
      return hasExactNumbers(output) ? { type: 'text', value: exactJsonText(output) } : { type: 'json', value: output };
    }
    case 'denied':
      return { type: 'execution-denied', reason: outcome.reason };
    case 'blocked':
      return { type: 'text', value: outcome.reason };
    case 'error':
      return { type: 'error-text', value: `${outcome.error.code}: ${outcome.error.message}` };
  }
}
