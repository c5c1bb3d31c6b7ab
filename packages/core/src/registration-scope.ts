import { DshError, ErrorCode } from './errors.js';
import type { Hooks } from './hooks.js';
import type { Host, HostEvents, HostGates, HostGuards, HostTools } from './host.js';
import type { HookPoint } from './taps.js';

/**
 * The host as one plugin's `register` sees it: every tool, tap, guard, gate
 * handler, event type and subscriber it adds is recorded, so that a failed
 * or timed-out registration leaves the host as it was. A registration that
 * arrives after the failure (a `register` still running past its deadline)
 * is undone at once and refused with `PLUGIN_REGISTER_FAILED`. Once the
 * plugin is in, its view passes registrations straight through.
 */
export class RegistrationScope {
  readonly host: Host;
  readonly #plugin: string;
  #undos: (() => void)[] | undefined = [];
  #failed = false;

  constructor(host: Host, plugin: string) {
    this.#plugin = plugin;
    this.host = this.#view(host);
  }

  /** The plugin is in: stop recording. */
  commit(): void {
    this.#undos = undefined;
  }

  /** The registration failed: undo everything it added, newest first. */
  rollback(): void {
    this.#failed = true;
    const undos = this.#undos ?? [];
    this.#undos = undefined;
    for (const undo of undos.reverse()) undo();
  }

  #track(undo: () => void): () => void {
    if (this.#failed) {
      undo();
      throw new DshError(
        ErrorCode.PLUGIN_REGISTER_FAILED,
        `plugin "${this.#plugin}" registered something after its registration had failed; it was undone`,
      );
    }
    this.#undos?.push(undo);
    return undo;
  }

  #view(host: Host): Host {
    const track = (undo: () => void): (() => void) => this.#track(undo);
    const point = <F extends (...args: never[]) => unknown>(p: HookPoint<F>): HookPoint<F> => {
      const view: HookPoint<F> = {
        hookName: p.hookName,
        tap: (nameOrOptions, fn) => track(p.tap(nameOrOptions, fn)),
        names: () => p.names(),
        get taps() {
          return p.taps;
        },
      };
      return Object.freeze(view);
    };
    const hooks: Hooks = {
      preExecute: point(host.hooks.preExecute),
      execute: point(host.hooks.execute),
      postExecute: point(host.hooks.postExecute),
      result: point(host.hooks.result),
    };
    const tools: HostTools = {
      ...host.tools,
      register: (definition) => track(host.tools.register(definition)),
      registerReserved: (name, definition) => track(host.tools.registerReserved(name, definition)),
    };
    const guards: HostGuards = {
      ...host.guards,
      register: (guard) => {
        const handle = host.guards.register(guard);
        track(() => handle.remove());
        return handle;
      },
    };
    const gates: HostGates = { on: (type, nameOrOptions, handler) => track(host.gates.on(type, nameOrOptions, handler)) };
    const events: HostEvents = {
      ...host.events,
      define: (type, schema, doc) => track(host.events.define(type, schema, doc)),
      subscribe: (listener) => track(host.events.subscribe(listener)),
    };
    const sandboxPolicy = Object.freeze({
      ...host.sandboxPolicy,
      contribute: (name: string, part: Parameters<Host['sandboxPolicy']['contribute']>[1]) =>
        track(host.sandboxPolicy.contribute(name, part)),
    });
    const view: Host = {
      ...host,
      sandboxPolicy,
      tools: Object.freeze(tools),
      hooks: Object.freeze(hooks),
      guards: Object.freeze(guards),
      gates: Object.freeze(gates),
      events: Object.freeze(events),
    };
    return Object.freeze(view);
  }
}
