import { definePlugin, type Plugin } from '@deepseek-ai/dsh-core';
import { context, createNoopMeter, metrics, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { durationBuckets, OtelNames } from './attributes.js';
import { CallTelemetry } from './call-telemetry.js';
import { type OtelOptions, parseOtelOptions } from './options.js';
import { version } from './version.js';

/** The plugin's name, also the name of its `tools/execute` tap. */
export const otelName = 'otel';
const scope = '@deepseek-ai/dsh-otel';
const noopMeterClass = createNoopMeter().constructor;

/**
 * OpenTelemetry for every tool call: an `execute_tool <name>` span per call
 * (GenAI semantic conventions), child spans for hook bridges' `hook/*`
 * events, and a duration histogram by tool and status. Needs only
 * `@opentelemetry/api`; with no SDK configured everything is a no-op.
 * Throws `INVALID_OPTIONS` (naming the field) for bad options.
 *
 * @example
 * ```ts
 * await host.use(otel({ tracerProvider, meterProvider }));
 * ```
 */
export function otel(options: OtelOptions = {}): Plugin {
  const resolved = parseOtelOptions(options);
  return definePlugin({
    name: otelName,
    version,
    register(host) {
      const tracerProvider = resolved.tracerProvider ?? trace.getTracerProvider();
      const tracer = tracerProvider.getTracer(scope, version);
      const meter = (resolved.meterProvider ?? metrics.getMeterProvider()).getMeter(scope, version);
      // The API's global tracer provider is a proxy: an SDK may register behind it later, so ask per call.
      // Its meter provider is not: a no-op meter now stays one.
      const metering = meter.constructor !== noopMeterClass;
      const tracing =
        tracerProvider instanceof ProxyTracerProvider ? () => tracerProvider.getDelegateTracer(scope, version) !== undefined : () => true;
      const duration = meter.createHistogram(OtelNames.DURATION_METRIC, {
        unit: 's',
        description: 'Time from a tool call entering the pipeline to its one result',
        advice: { explicitBucketBoundaries: [...durationBuckets] },
      });
      const enabled = metering ? () => true : tracing;
      const telemetry = new CallTelemetry(host, {
        enabled,
        tracer,
        duration,
        captureArguments: resolved.captureArguments,
        spanEvents: resolved.spanEvents,
      });
      host.events.subscribe(telemetry.onEvent);
      // With the call's span active, spans the body starts (an HTTP client's) nest under it.
      host.hooks.execute.tap({ name: otelName, stage: resolved.stage }, (ctx, next) => {
        if (!enabled()) return next();
        const active = telemetry.contextOf(ctx.call.token, ctx.call.id);
        return active === undefined ? next() : context.with(active, () => next());
      });
    },
  });
}
