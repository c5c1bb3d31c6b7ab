import { GuestBridge, type GuestDone, type GuestListener } from './guest-bridge.js';
import { configKey, type GuestConfig } from './guest-protocol.js';
import { createSandbox, type Sandbox } from './sandbox.js';

/**
 * A QuickJS instance built ahead of its run, in the worker, while the host
 * waits for nothing. Building it (a fresh WebAssembly instance and memory, a
 * runtime and a context: about 4 ms) and installing the bootstrap (QuickJS
 * parses about 10 KB of source: about 2.5 ms) are what a warm start must
 * not pay for. The bootstrap needs the run's config (tool names, caps), so it
 * is installed ahead only with the config the worker expects (that of its
 * previous run, or the one it was prepared for); a run with another config
 * gets a new instance and installs its own bootstrap.
 *
 * Nothing of an earlier run is in it: every instance is new, and only trusted
 * bootstrap code has run in it.
 */
export interface PreparedInstance {
  readonly sandbox: Sandbox;
  /** The bootstrap already installed, and the config it was installed with. */
  readonly installed: Installed | undefined;
}

interface Installed {
  /** {@link configKey} of the config the bootstrap was installed with. */
  readonly key: string;
  readonly bridge: GuestBridge;
  /** Where the bridge's host functions report: the session that takes the instance points it at itself. */
  readonly relay: ListenerRelay;
}

/** Forwards the bridge's host functions to whichever session holds the instance; until then, to nothing. */
export class ListenerRelay implements GuestListener {
  target: GuestListener | undefined;

  log(line: string): boolean {
    return this.target?.log(line) ?? true;
  }

  done(report: GuestDone): void {
    this.target?.done(report);
  }
}

/** The caps the host side of the bridge checks, from the config. */
export function bridgeLimits(config: GuestConfig): { maxLogChars: number; maxResultChars: number; maxErrorChars: number } {
  return { maxLogChars: config.maxLogChars, maxResultChars: config.maxResultChars, maxErrorChars: config.maxErrorChars };
}

/**
 * Builds an instance with this memory cap, and installs the bootstrap for
 * `config` when it is given. An install that fails (a ledger too large for
 * the memory cap, say) leaves a bare instance instead, so the run reports the
 * failure exactly as it would have without preparation.
 */
export async function prepareInstance(memoryLimitBytes: number, config: GuestConfig | undefined): Promise<PreparedInstance> {
  const sandbox = await createSandbox(memoryLimitBytes);
  if (config === undefined) return { sandbox, installed: undefined };
  const relay = new ListenerRelay();
  const bridge = new GuestBridge(sandbox, bridgeLimits(config), relay);
  try {
    bridge.install(config);
    return { sandbox, installed: { key: configKey(config), bridge, relay } };
  } catch {
    disposeInstance({ sandbox, installed: undefined });
    return { sandbox: await createSandbox(memoryLimitBytes), installed: undefined };
  }
}

/** Frees an instance no run will use; one the engine cannot free is left to the collector. */
export function disposeInstance(instance: PreparedInstance): void {
  try {
    instance.installed?.bridge.dispose();
    instance.sandbox.context.dispose();
    instance.sandbox.runtime.dispose();
  } catch {
    // Dropped whole with its WebAssembly memory.
  }
}
