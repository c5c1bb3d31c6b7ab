/**
 * OpenTelemetry spans and metrics for dsh tool calls, through
 * `@opentelemetry/api` only: without an SDK it costs almost nothing.
 *
 * @packageDocumentation
 */
export { durationBuckets, OtelNames } from './attributes.js';
export { OtelCode } from './errors.js';
export { type OtelOptions, otelOptionsSchema, parseOtelOptions, type ResolvedOtelOptions } from './options.js';
export { otel, otelName } from './plugin.js';
