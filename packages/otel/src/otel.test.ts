import { AsyncLocalStorage } from 'node:async_hooks';
import { defineTool, type Plugin, type ToolDefinition, ToolError, z } from '@deepseek-ai/dsh-core';
import { createTestHost, type TestHost } from '@deepseek-ai/dsh-core/testing';
import { type Context, type ContextManager, context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  type HistogramMetricData,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { type OtelOptions, otel } from './index.js';

const echo = defineTool({
  name: 'echo',
  description: 'returns its text',
  input: z.object({ text: z.string() }),
  execute: (args) => args.text,
});

const broken = defineTool({
  name: 'broken',
  description: 'always fails',
  input: z.object({}),
  execute: () => {
    throw new ToolError('DISK_FULL', 'no space left');
  },
});

function tools(...definitions: ToolDefinition[]): Plugin {
  return { name: 'test-tools', version: '0.0.0', register: (host) => definitions.forEach((d) => void host.tools.register(d)) };
}

/** A real SDK pipeline with in-memory exporters. */
function sdk() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    finished: (): ReadableSpan[] => spans.getFinishedSpans(),
    async histogram(): Promise<HistogramMetricData | undefined> {
      await reader.forceFlush();
      const all = metricExporter.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics));
      return all.filter((m) => m.descriptor.name === 'dsh.tool.call.duration').at(-1) as HistogramMetricData | undefined;
    },
    shutdown: () => Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]),
  };
}

type Sdk = ReturnType<typeof sdk>;
let current: Sdk | undefined;

async function traced(options: OtelOptions = {}, ...plugins: Plugin[]): Promise<{ t: TestHost; s: Sdk }> {
  const s = sdk();
  current = s;
  const t = await createTestHost({
    session: 'session-1',
    plugins: [otel({ tracerProvider: s.tracerProvider, meterProvider: s.meterProvider, ...options }), ...plugins],
  });
  return { t, s };
}

afterEach(async () => {
  await current?.shutdown();
  current = undefined;
});

function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

describe('otel spans', () => {
  it('records one execute_tool span per call with the GenAI attributes', async () => {
    const { t, s } = await traced({}, tools(echo));
    await t.call('echo', { text: 'hi' }, 'call-a');
    const span = only(s.finished(), 'execute_tool echo');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'call-a',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'returns its text',
      'gen_ai.conversation.id': 'session-1',
      'dsh.tool.status': 'ok',
      'dsh.outcome.stage': 'execute',
    });
    expect(span.attributes).not.toHaveProperty('error.type');
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
  });

  it('sets error.type and an error status when the call fails', async () => {
    const { t, s } = await traced({}, tools(broken));
    await t.call('broken');
    const span = only(s.finished(), 'execute_tool broken');
    expect(span.attributes).toMatchObject({ 'error.type': 'DISK_FULL', 'dsh.tool.status': 'error', 'dsh.outcome.code': 'DISK_FULL' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no space left' });
  });

  it('records the decision stage of a denied call, which never dispatched', async () => {
    const { t, s } = await traced({}, tools(echo));
    t.host.guards.register({ id: 'no-echo', check: () => ({ deny: 'echo is off' }) });
    await t.call('echo', { text: 'x' });
    const span = only(s.finished(), 'execute_tool echo');
    expect(span.attributes).toMatchObject({
      'dsh.tool.status': 'denied',
      'dsh.outcome.stage': 'guard',
      'dsh.outcome.by': 'no-echo',
      'dsh.outcome.code': 'GUARD_DENIED',
    });
    expect(span.attributes).not.toHaveProperty('error.type');
  });

  it('traces calls that fail validation and calls to unknown tools', async () => {
    const { t, s } = await traced({}, tools(echo));
    await t.call('echo', { text: 42 });
    await t.call('nope');
    expect(only(s.finished(), 'execute_tool echo').attributes).toMatchObject({
      'error.type': 'INVALID_ARGS',
      'dsh.outcome.stage': 'validate',
    });
    expect(only(s.finished(), 'execute_tool nope').attributes).toMatchObject({ 'error.type': 'UNKNOWN_TOOL' });
  });

  it("records the model's arguments only when captureArguments is on, keeping big integers exact", async () => {
    const { t, s } = await traced({ captureArguments: true }, tools(echo));
    await t.call('echo', '{"text":"hi","n":12345678901234567890}');
    expect(only(s.finished(), 'execute_tool echo').attributes['gen_ai.tool.call.arguments']).toBe('{"text":"hi","n":12345678901234567890}');
    await t.call('echo', { text: 'obj', big: 12345678901234567890n });
    const spans = s.finished().filter((x) => x.name === 'execute_tool echo');
    expect(spans[1]?.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"obj","big":"12345678901234567890"}');
  });

  it('nests the spans of sub-calls under the span of the call that made them', async () => {
    const outer = defineTool({
      name: 'outer',
      description: 'calls echo through the pipeline',
      input: z.object({}),
      execute: async (_args, ctx) => ctx.tools.execute({ id: `${ctx.call.id}:sub`, name: 'echo', args: { text: 'inner' } }),
    });
    const { t, s } = await traced({}, tools(echo, outer));
    await t.call('outer', {}, 'o1');
    const parent = only(s.finished(), 'execute_tool outer');
    const child = only(s.finished(), 'execute_tool echo');
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(child.attributes).toMatchObject({ 'dsh.call.parent': 'o1', 'gen_ai.tool.call.id': 'o1:sub' });
  });

  it('turns hook/invoked and hook/result events into child spans of the call', async () => {
    const hooks: Plugin = {
      name: 'fake-bridge',
      version: '0.0.0',
      register: (host) => {
        host.hooks.preExecute.tap('bridge', async (state) => {
          await host.events.emit('hook/invoked', { hook: 'check.sh', event: 'PreToolUse', source: 'project' }, state.call);
          await host.events.emit(
            'hook/result',
            { hook: 'check.sh', event: 'PreToolUse', exitCode: 0, decision: 'allow', durationMs: 12 },
            state.call,
          );
          // A bridge may log only a result: the span is dated back by its duration.
          await host.events.emit(
            'hook/result',
            { hook: 'audit.sh', event: 'PreToolUse', exitCode: 1, durationMs: 30, error: 'exit 1' },
            state.call,
          );
          return undefined;
        });
      },
    };
    const { t, s } = await traced({}, tools(echo), hooks);
    await t.call('echo', { text: 'x' });
    const call = only(s.finished(), 'execute_tool echo');
    const hookSpans = s.finished().filter((x) => x.name === 'hook PreToolUse');
    expect(hookSpans).toHaveLength(2);
    for (const h of hookSpans) expect(h.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    const check = hookSpans.find((h) => h.attributes['dsh.hook.name'] === 'check.sh');
    expect(check?.attributes).toMatchObject({
      'dsh.hook.event': 'PreToolUse',
      'dsh.hook.source': 'project',
      'dsh.hook.exit_code': 0,
      'dsh.hook.decision': 'allow',
    });
    const audit = hookSpans.find((h) => h.attributes['dsh.hook.name'] === 'audit.sh');
    expect(audit?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'exit 1' });
    expect(audit?.attributes['error.type']).toBe('HOOK_FAILED');
    const [sec, nanos] = audit?.duration ?? [0, 0];
    expect(sec * 1_000 + nanos / 1e6).toBeGreaterThanOrEqual(30);
  });

  it("adds the call's other events as span events with their scalar fields", async () => {
    const noisy = defineTool({
      name: 'noisy',
      description: 'logs an event of its own',
      input: z.object({}),
      execute: async (_args, ctx) => {
        await ctx.emit('fs/observed', { state: 'absent', path: '/tmp/x' });
        return null;
      },
    });
    const { t, s } = await traced({}, tools(noisy));
    await t.call('noisy');
    expect(only(s.finished(), 'execute_tool noisy').events.map((e) => [e.name, e.attributes])).toEqual([
      ['fs/observed', { state: 'absent', path: '/tmp/x' }],
    ]);
    const quiet = await traced({ spanEvents: false }, tools(noisy));
    await quiet.t.call('noisy');
    expect(only(quiet.s.finished(), 'execute_tool noisy').events).toEqual([]);
  });
});

describe('otel metrics', () => {
  it('records the duration of every call by tool name and status', async () => {
    const { t, s } = await traced({}, tools(echo, broken));
    await t.call('echo', { text: 'a' });
    await t.call('echo', { text: 'b' });
    await t.call('broken');
    t.host.guards.register({ id: 'no', check: () => ({ deny: 'no' }) });
    await t.call('echo', { text: 'c' });
    const histogram = await s.histogram();
    expect(histogram?.descriptor).toMatchObject({ unit: 's' });
    expect(histogram?.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = (histogram?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, count: p.value.count }));
    expect(points).toEqual(
      expect.arrayContaining([
        { attributes: expect.objectContaining({ 'gen_ai.tool.name': 'echo', 'dsh.tool.status': 'ok' }), count: 2 },
        {
          attributes: expect.objectContaining({ 'gen_ai.tool.name': 'broken', 'dsh.tool.status': 'error', 'error.type': 'DISK_FULL' }),
          count: 1,
        },
        {
          attributes: expect.objectContaining({ 'gen_ai.tool.name': 'echo', 'dsh.tool.status': 'denied', 'dsh.outcome.stage': 'guard' }),
          count: 1,
        },
      ]),
    );
    expect(points).toHaveLength(3);
  });

  it('records tool names in metrics even when only a meter provider is configured', async () => {
    const s = sdk();
    current = s;
    const t = await createTestHost({ plugins: [otel({ meterProvider: s.meterProvider }), tools(echo)] });
    await t.call('echo', { text: 'a' });
    const histogram = await s.histogram();
    expect(histogram?.dataPoints[0]?.attributes).toMatchObject({ 'gen_ai.tool.name': 'echo', 'dsh.tool.status': 'ok' });
  });
});

/** A context manager on AsyncLocalStorage, as `@opentelemetry/context-async-hooks` provides. */
class AlsContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

describe('otel with global providers and context', () => {
  afterEach(() => {
    trace.disable();
    context.disable();
  });

  it('makes the call span active in the body, so spans the body starts nest under it', async () => {
    context.setGlobalContextManager(new AlsContextManager());
    const s = sdk();
    current = s;
    const fetcher = defineTool({
      name: 'fetcher',
      description: 'starts a span of its own, as an instrumented HTTP client would',
      input: z.object({}),
      execute: async () => {
        const span = s.tracerProvider.getTracer('http').startSpan('GET /page');
        span.end();
        return trace.getActiveSpan() === undefined ? 'no active span' : 'active';
      },
    });
    const t = await createTestHost({ plugins: [otel({ tracerProvider: s.tracerProvider }), tools(fetcher)] });
    expect(await t.call('fetcher')).toMatchObject({ status: 'ok', output: 'active' });
    const call = only(s.finished(), 'execute_tool fetcher');
    expect(only(s.finished(), 'GET /page').parentSpanContext?.spanId).toBe(call.spanContext().spanId);
  });

  it('parents call spans on the context active when the step runs', async () => {
    context.setGlobalContextManager(new AlsContextManager());
    const s = sdk();
    current = s;
    const t = await createTestHost({ plugins: [otel({ tracerProvider: s.tracerProvider }), tools(echo)] });
    const agent = s.tracerProvider.getTracer('agent').startSpan('invoke_agent');
    await context.with(trace.setSpan(context.active(), agent), () => t.call('echo', { text: 'x' }));
    agent.end();
    expect(only(s.finished(), 'execute_tool echo').parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
  });

  it('uses the global tracer provider when none is given, even one registered after the plugin', async () => {
    const t = await createTestHost({ plugins: [otel(), tools(echo)] });
    const s = sdk();
    current = s;
    trace.setGlobalTracerProvider(s.tracerProvider);
    await t.call('echo', { text: 'x' });
    expect(s.finished().map((x) => x.name)).toEqual(['execute_tool echo']);
  });

  it('runs every call unchanged when no SDK is configured', async () => {
    const t = await createTestHost({ plugins: [otel({ captureArguments: true }), tools(echo, broken)] });
    expect(await t.call('echo', { text: 'x' })).toMatchObject({ status: 'ok', output: 'x' });
    expect(await t.call('broken')).toMatchObject({ status: 'error', error: { code: 'DISK_FULL' } });
    expect(t.host.diagnostics.list()).toEqual([]);
  });
});

describe('otel options', () => {
  it('refuses bad options with INVALID_OPTIONS naming the field', () => {
    expect(() => otel({ tracerProvider: {} as never })).toThrow(/otel: tracerProvider: must have a getTracer method/);
    expect(() => otel({ meterProvider: 3 as never })).toThrow(/otel: meterProvider:/);
    expect(() => otel({ captureArguments: 'yes' as never })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => otel({ exporter: 1 } as OtelOptions)).toThrow(/otel: options:/);
  });
});
