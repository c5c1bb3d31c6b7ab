/** Stable codes of the otel plugin. It changes no outcome, so it has only these. */
export const OtelCode = {
  /** The factory was given options it cannot use (thrown by `otel`). */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
} as const;

/** One of the otel plugin's stable codes. */
export type OtelCode = (typeof OtelCode)[keyof typeof OtelCode];
