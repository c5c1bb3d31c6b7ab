import type { AnySessionEvent, Host, Outcome } from '@deepseek-ai/dsh-core';
import {
  type Attributes,
  type Context,
  context,
  type Histogram,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { OtelNames as N } from './attributes.js';
import { argumentsText, scalarAttributes } from './internal/scalars.js';

/** A call between its `tool/call` and its `tool/result`. */
interface OpenCall {
  readonly span: Span;
  /** The context with this call's span active: the parent of its hook spans and sub-calls. */
  readonly context: Context;
  readonly startedAt: number;
  readonly toolName: string;
  /** Hook spans begun by `hook/invoked`, waiting for their `hook/result`, by hook and event. */
  hooks?: Map<string, Span[]>;
}

/** What the telemetry needs besides the host. */
export interface CallTelemetryConfig {
  /** False while neither spans nor metrics would be recorded (no SDK): calls then cost almost nothing. */
  readonly enabled: () => boolean;
  readonly tracer: Tracer;
  readonly duration: Histogram;
  readonly captureArguments: boolean;
  readonly spanEvents: boolean;
}

/**
 * Turns the session log into telemetry: a span per call from its `tool/call`
 * to its `tool/result` event (so denied and invalid calls have one too),
 * child spans from `hook/*` events, span events from the call's other
 * events, and one duration measurement per call.
 */
export class CallTelemetry {
  readonly #host: Host;
  readonly #config: CallTelemetryConfig;
  readonly #open = new Map<string, OpenCall>();

  constructor(host: Host, config: CallTelemetryConfig) {
    this.#host = host;
    this.#config = config;
  }

  /** The session-log listener. */
  readonly onEvent = (event: AnySessionEvent): void => {
    if (event.call === undefined || event.token === undefined) return;
    switch (event.type) {
      case 'tool/call':
        this.#begin(event.token, event.call, event.data);
        return;
      case 'tool/result':
        this.#end(event.token, event.call, event.data.outcome);
        return;
      case 'hook/invoked':
        this.#hookBegin(event.token, event.call, event.data);
        return;
      case 'hook/result':
        this.#hookEnd(event.token, event.call, event.data);
        return;
      default:
        if (this.#config.spanEvents)
          this.#open.get(keyOf(event.token, event.call))?.span.addEvent(event.type, scalarAttributes(event.data));
    }
  };

  /** The context in which the call's body should run (its span active), if the call is being traced. */
  contextOf(token: string, call: string): Context | undefined {
    const open = this.#open.get(keyOf(token, call));
    return open?.span.isRecording() ? open.context : undefined;
  }

  #begin(token: string, call: string, data: { readonly name: string; readonly args: unknown; readonly parent?: string }): void {
    if (!this.#config.enabled()) return;
    const parent = data.parent === undefined ? undefined : this.#open.get(keyOf(token, data.parent));
    const parentContext = parent?.context ?? context.active();
    // Samplers see the operation and the tool at creation; the rest is added only to a recording span.
    const span = this.#config.tracer.startSpan(
      `${N.OPERATION} ${data.name}`,
      { kind: SpanKind.INTERNAL, attributes: { [N.OPERATION_NAME]: N.OPERATION, [N.TOOL_NAME]: data.name } },
      parentContext,
    );
    const recording = span.isRecording();
    if (recording) {
      const attributes: Attributes = {
        [N.TOOL_CALL_ID]: call,
        [N.TOOL_TYPE]: 'function',
        [N.CONVERSATION_ID]: this.#host.session,
        [N.TOKEN]: token,
      };
      const description = this.#host.tools.get(data.name)?.description;
      if (description !== undefined) attributes[N.TOOL_DESCRIPTION] = description;
      if (data.parent !== undefined) attributes[N.PARENT_CALL] = data.parent;
      if (this.#config.captureArguments) attributes[N.TOOL_CALL_ARGUMENTS] = argumentsText(data.args);
      span.setAttributes(attributes);
    }
    this.#open.set(keyOf(token, call), {
      span,
      // Without an SDK the span records nothing: skip building a context for it.
      context: recording ? trace.setSpan(parentContext, span) : parentContext,
      startedAt: performance.now(),
      toolName: data.name,
    });
  }

  #end(token: string, call: string, outcome: Outcome): void {
    // Nothing open (no SDK): skip building the key.
    if (this.#open.size === 0) return;
    const key = keyOf(token, call);
    const open = this.#open.get(key);
    if (open === undefined) return;
    this.#open.delete(key);
    const { span } = open;
    const attributes: Attributes = {
      [N.OPERATION_NAME]: N.OPERATION,
      [N.TOOL_NAME]: open.toolName,
      [N.STATUS]: outcome.status,
      [N.STAGE]: outcome.stage,
    };
    if (outcome.status === 'error') {
      attributes[N.ERROR_TYPE] = outcome.error.code;
      attributes[N.CODE] = outcome.error.code;
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
    } else if (outcome.status !== 'ok') {
      attributes[N.CODE] = outcome.code;
    }
    this.#config.duration.record((performance.now() - open.startedAt) / 1000, attributes);
    if (span.isRecording()) {
      if (outcome.by !== undefined) span.setAttribute(N.BY, outcome.by);
      span.setAttributes(attributes);
    }
    if (open.hooks !== undefined) {
      for (const pending of open.hooks.values()) {
        for (const hook of pending) {
          hook.setStatus({ code: SpanStatusCode.ERROR, message: 'the call ended before the hook reported a result' });
          hook.end();
        }
      }
    }
    span.end();
  }

  #hookBegin(
    token: string,
    call: string,
    data: { readonly hook: string; readonly event: string; readonly source?: string | undefined },
  ): void {
    const open = this.#open.get(keyOf(token, call));
    if (open === undefined || !open.span.isRecording()) return;
    const attributes: Attributes = { [N.HOOK_NAME]: data.hook, [N.HOOK_EVENT]: data.event };
    if (typeof data.source === 'string') attributes[N.HOOK_SOURCE] = data.source;
    const span = this.#config.tracer.startSpan(`hook ${data.event}`, { kind: SpanKind.INTERNAL, attributes }, open.context);
    open.hooks ??= new Map();
    const key = keyOf(data.hook, data.event);
    const pending = open.hooks.get(key);
    if (pending === undefined) open.hooks.set(key, [span]);
    else pending.push(span);
  }

  #hookEnd(
    token: string,
    call: string,
    data: {
      readonly hook: string;
      readonly event: string;
      readonly exitCode?: number | null | undefined;
      readonly decision?: string | undefined;
      readonly durationMs: number;
      readonly error?: string | undefined;
    },
  ): void {
    const open = this.#open.get(keyOf(token, call));
    if (open === undefined || !open.span.isRecording()) return;
    // A result with no matching start (a bridge that logs only results) gets a span dated back by its duration.
    const span =
      open.hooks?.get(keyOf(data.hook, data.event))?.shift() ??
      this.#config.tracer.startSpan(
        `hook ${data.event}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: { [N.HOOK_NAME]: data.hook, [N.HOOK_EVENT]: data.event },
          startTime: Date.now() - data.durationMs,
        },
        open.context,
      );
    if (typeof data.exitCode === 'number') span.setAttribute(N.HOOK_EXIT_CODE, data.exitCode);
    if (typeof data.decision === 'string') span.setAttribute(N.HOOK_DECISION, data.decision);
    if (typeof data.error === 'string') {
      span.setAttribute(N.ERROR_TYPE, 'HOOK_FAILED');
      span.setStatus({ code: SpanStatusCode.ERROR, message: data.error });
    }
    span.end();
  }
}

function keyOf(a: string, b: string): string {
  return `${a}\u0000${b}`;
}
