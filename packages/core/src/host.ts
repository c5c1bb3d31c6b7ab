import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { type SessionAnchors, sessionAnchors } from './anchors.js';
import { Diagnostics } from './diagnostics.js';
import { emitChecked } from './emit.js';
import { DshError, ErrorCode, messageOf } from './errors.js';
import type { EventDoc } from './event-docs.js';
import { type AnySessionEvent, type DroppedEvents, type EventData, EventLog, type EventSink, type EventType } from './events.js';
import { executeCall } from './execute-call.js';
import { type GateHandler, GateRegistry, type GateType } from './gates.js';
import { type Guard, type GuardHandle, GuardRegistry } from './guards.js';
import { createHooks, type Hooks } from './hooks.js';
import { withDeadline } from './internal/deadline.js';
import { DeadlineTimer } from './internal/deadline-timer.js';
import { rememberRuntime } from './internal/host-runtimes.js';
import { satisfies } from './internal/semver-range.js';
import { type HostOptions, parseHostOptions } from './options.js';
import type { CallIdentity, Outcome } from './outcome.js';
import type { Plugin } from './plugin.js';
import { RegistrationScope } from './registration-scope.js';
import { type ReservedToolName, ToolRegistry, type ToolSchema } from './registry.js';
import type { ParentCall, Runtime } from './runtime.js';
import { createSandboxPolicy, type HostSandboxPolicy } from './sandbox-policy.js';
import { runStep, type Step, type StepOptions, type StepResult } from './step.js';
import type { AnyToolDefinition, Dialect, SubCall } from './tool.js';

/** `host.tools`: the registry and the way into the pipeline for a single call. */
export interface HostTools {
  /** Registers a tool; returns the way to unregister it. `run_code` is refused here. */
  register(definition: AnyToolDefinition): () => void;
  /** Registers a reserved tool (`run_code`): the path only its owning plugin uses. */
  registerReserved(name: ReservedToolName, definition: AnyToolDefinition): () => void;
  /** Runs one call through the whole pipeline; with `parent`, as that call's sub-call. */
  execute(call: SubCall, parent?: ParentCall): Promise<Outcome>;
  /** Name, description and input JSON Schema per tool: all the model needs, nothing more. */
  schemas(): ToolSchema[];
  get(name: string): AnyToolDefinition | undefined;
  list(): AnyToolDefinition[];
  /** The tool that another agent's vocabulary calls `name` (`Bash` in Claude Code, say). */
  findExternal(dialect: Dialect, name: string): AnyToolDefinition | undefined;
}

/** `host.guards`: registration only; the returned handle is the one way to remove a guard. */
export interface HostGuards {
  register(guard: Guard): GuardHandle;
  ids(): string[];
}

/** `host.gates`: named handlers of vetoable events. */
export interface HostGates {
  on<T extends GateType>(
    type: T,
    nameOrOptions: string | { readonly name: string; readonly timeoutMs?: number },
    handler: GateHandler<T>,
  ): () => void;
}

/** `host.events`: the session log. */
export interface HostEvents {
  readonly session: string;
  /** The sink events are written to besides memory, if any. */
  readonly sink: EventSink | undefined;
  /**
   * The events kept in memory, oldest first: at most `retainEvents` of them
   * and about `retainEventBytes`. When older ones were let go, `dropped()` says
   * how many, and `list()[0].seq` is `dropped().throughSeq + 1`.
   */
  list(): readonly AnySessionEvent[];
  /** What `list()` has let go of to stay within its bounds; `{ events: 0, bytes: 0, throughSeq: 0 }` until then. */
  dropped(): DroppedEvents;
  subscribe(listener: (event: AnySessionEvent) => void): () => void;
  /**
   * Appends an event of a registered type, checked against its schema
   * (`INVALID_EVENT_DATA`, `UNKNOWN_EVENT_TYPE`); pass `call` to tie it to a
   * call (taps use this; tool bodies use `ctx.emit`). Settles once the sink holds it.
   */
  emit<T extends EventType>(type: T, data: EventData<T>, call?: CallIdentity): Promise<void>;
  /**
   * Registers a plugin event type (`<plugin>/<event>`) with its data schema and,
   * for the catalog, its one-line meaning and an example `data` (checked against the schema).
   */
  define(type: string, schema: z.ZodType, doc?: EventDoc): () => void;
  /** Every known event type's schema, for catalogs. */
  schemas(): ReadonlyMap<string, z.ZodType>;
  /** The meaning and example of every event type defined with them (all of core's), for catalogs. */
  docs(): ReadonlyMap<string, EventDoc>;
  /** Settles when the sink holds everything logged so far. */
  flush(): Promise<void>;
}

/** A pipeline host: one per session. */
export interface Host {
  readonly session: string;
  /**
   * The session's working, project and home directories (absolute, frozen).
   * Plugins take them by default; file tools resolve path arguments against
   * them before any policy sees a call.
   */
  readonly anchors: SessionAnchors;
  /**
   * What sandboxed commands may touch, as policy plugins contribute it
   * (hidden, read-only and writable paths, network lists) and sandboxes read
   * it before each command. Costs nothing until a plugin contributes.
   */
  readonly sandboxPolicy: HostSandboxPolicy;
  /** Registers a plugin: awaits its `register`, refusing a second plugin of the same name. */
  use(plugin: Plugin): Promise<void>;
  /** Runs every call of a step and resolves with one result per call. Never rejects. */
  runStep(step: Step, options?: StepOptions): Promise<StepResult>;
  readonly tools: HostTools;
  readonly hooks: Hooks;
  readonly guards: HostGuards;
  readonly gates: HostGates;
  readonly events: HostEvents;
  /** Failures that changed no outcome: observers, sinks, presenters, late bodies. */
  readonly diagnostics: Diagnostics;
  /** The registered plugins' names and versions, in registration order. */
  plugins(): readonly { readonly name: string; readonly version: string }[];
  /**
   * Closes the registered plugins (their `close`, newest first), then flushes
   * and closes the sink. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/** Creates a host. Options are validated; a bad one throws `INVALID_OPTIONS` naming the field. */
export function createHost(options: HostOptions = {}): Host {
  const o = parseHostOptions(options);
  const session = o.session ?? randomUUID();
  const anchors = sessionAnchors({
    ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
    ...(o.projectDir === undefined ? {} : { projectDir: o.projectDir }),
    ...(o.homeDir === undefined ? {} : { homeDir: o.homeDir }),
  });
  const diagnostics = new Diagnostics();
  const log = new EventLog({
    session,
    sink: o.sink,
    retain: o.retainEvents,
    retainBytes: o.retainEventBytes,
    sinkTimeoutMs: o.sinkTimeoutMs ?? 10_000,
    diagnostics,
  });
  const registry = new ToolRegistry();
  const guards = new GuardRegistry();
  const gates = new GateRegistry();
  const hooks = createHooks();
  let tokens = 0;
  const tokenPrefix = randomUUID().slice(0, 8);
  const rt: Runtime = {
    session,
    anchors,
    tools: registry,
    hooks,
    guards,
    gates,
    log,
    diagnostics,
    approval: o.approval,
    ui: o.ui,
    defaultDecision: o.defaultDecision ?? 'ask',
    limits: {
      approvalTimeoutMs: o.approvalTimeoutMs ?? 300_000,
      tapTimeoutMs: o.tapTimeoutMs ?? 30_000,
      uiTimeoutMs: o.uiTimeoutMs ?? 5_000,
      abortGraceMs: o.abortGraceMs ?? 2_000,
      dispatchTimeoutMs: o.dispatchTimeoutMs,
      maxParallel: o.maxParallel ?? 10,
    },
    deadlines: new DeadlineTimer(),
    nextToken: () => {
      tokens += 1;
      return `${tokenPrefix}-${tokens}`;
    },
    execute: (call, parent) => executeCall(rt, call, parent),
  };
  const plugins: { name: string; version: string }[] = [];
  /** The registered plugins that have something to stop when the host closes, with the host each registered with, oldest first. */
  const closers: { plugin: Plugin; host: Host }[] = [];
  let closed: Promise<void> | undefined;
  let registering: Promise<void> = Promise.resolve();
  const pluginTimeoutMs = o.pluginTimeoutMs ?? 10_000;

  const host: Host = {
    session,
    anchors,
    sandboxPolicy: createSandboxPolicy(),
    use(plugin) {
      // Plugins register one at a time, so a dependency is in place before its dependants.
      const turn = registering.then(async () => {
        const registeredWith = await registerPlugin(host, plugins, plugin, pluginTimeoutMs);
        if (typeof plugin.close === 'function') closers.push({ plugin, host: registeredWith });
      });
      registering = turn.catch(() => undefined);
      return turn;
    },
    // runStep never rejects: a step that cannot run at all resolves with its error.
    runStep: (step, stepOptions) => runStep(rt, step, stepOptions),
    tools: Object.freeze({
      register: registry.register.bind(registry),
      registerReserved: registry.registerReserved.bind(registry),
      execute: (call: SubCall, parent?: ParentCall) => executeCall(rt, call, parent),
      schemas: () => registry.schemas(),
      get: (name: string) => registry.get(name),
      list: () => registry.list(),
      findExternal: (dialect: Dialect, name: string) => registry.findExternal(dialect, name),
    }) as HostTools,
    hooks,
    guards: Object.freeze({ register: (guard: Guard) => guards.register(guard), ids: () => guards.ids() }),
    gates: Object.freeze({ on: gates.on.bind(gates) }) as HostGates,
    events: Object.freeze({
      session,
      sink: o.sink,
      list: () => log.list(),
      dropped: () => log.dropped(),
      subscribe: (listener: (event: AnySessionEvent) => void) => log.subscribe(listener),
      emit: <T extends EventType>(type: T, data: EventData<T>, call?: CallIdentity) => emitChecked(log, type, data, call),
      define: (type: string, schema: z.ZodType, doc?: EventDoc) => log.define(type, schema, doc),
      schemas: () => log.schemas(),
      docs: () => log.docs(),
      flush: () => log.flush(),
    }),
    diagnostics,
    plugins: () => plugins.map((p) => Object.freeze({ ...p })),
    close() {
      closed ??= (async () => {
        await registering;
        await closePlugins(closers.splice(0).reverse(), pluginTimeoutMs, diagnostics);
        await log.flush();
        await o.sink?.close?.();
      })();
      return closed;
    },
  };
  const frozen = Object.freeze(host);
  rememberRuntime(frozen, rt);
  return frozen;
}

/** Closes each plugin in turn; a failure or a close past the deadline is a diagnostic, never thrown. */
async function closePlugins(
  plugins: readonly { plugin: Plugin; host: Host }[],
  timeoutMs: number,
  diagnostics: Diagnostics,
): Promise<void> {
  for (const { plugin, host } of plugins) {
    try {
      const settled = await withDeadline(
        Promise.resolve().then(() => plugin.close?.(host)),
        timeoutMs,
      );
      if (settled.timedOut) {
        diagnostics.record(ErrorCode.PLUGIN_CLOSE_TIMEOUT, `plugin:${plugin.name}`, `close did not finish within ${timeoutMs} ms`);
      }
    } catch (error) {
      diagnostics.record(ErrorCode.PLUGIN_CLOSE_FAILED, `plugin:${plugin.name}`, `close failed: ${messageOf(error)}`);
    }
  }
}

/** Registers `plugin`; resolves with the host its `register` was given (its own view of `host`). */
async function registerPlugin(host: Host, plugins: { name: string; version: string }[], plugin: Plugin, timeoutMs: number): Promise<Host> {
  if (typeof plugin !== 'object' || plugin === null || typeof plugin.name !== 'string' || typeof plugin.register !== 'function') {
    throw new DshError(ErrorCode.INVALID_PLUGIN, 'host.use needs a plugin: { name, version, register }');
  }
  if (plugins.some((p) => p.name === plugin.name)) {
    throw new DshError(ErrorCode.DUPLICATE_PLUGIN, `a plugin named "${plugin.name}" is already registered`);
  }
  for (const dependency of plugin.dependencies ?? []) {
    const { name, versions } = typeof dependency === 'string' ? { name: dependency, versions: undefined } : dependency;
    const registered = plugins.find((p) => p.name === name);
    if (registered === undefined) {
      throw new DshError(ErrorCode.PLUGIN_DEPENDENCY_MISSING, `plugin "${plugin.name}" needs "${name}" registered first`);
    }
    if (versions !== undefined && !satisfies(registered.version, versions)) {
      throw new DshError(
        ErrorCode.PLUGIN_DEPENDENCY_VERSION,
        `plugin "${plugin.name}" needs "${name}" at versions ${versions}, but ${registered.version} is registered`,
      );
    }
  }
  // What the plugin adds is recorded, so that a failed registration leaves the host as it was.
  const scope = new RegistrationScope(host, plugin.name);
  let settled: Awaited<ReturnType<typeof withDeadline<void>>>;
  try {
    settled = await withDeadline(
      Promise.resolve().then(() => plugin.register(scope.host)),
      timeoutMs,
    );
  } catch (error) {
    scope.rollback();
    throw new DshError(ErrorCode.PLUGIN_REGISTER_FAILED, `plugin "${plugin.name}" failed to register: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (settled.timedOut) {
    scope.rollback();
    throw new DshError(ErrorCode.PLUGIN_REGISTER_TIMEOUT, `plugin "${plugin.name}" did not finish registering within ${timeoutMs} ms`);
  }
  scope.commit();
  plugins.push({ name: plugin.name, version: String(plugin.version) });
  return scope.host;
}
