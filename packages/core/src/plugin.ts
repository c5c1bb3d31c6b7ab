import { DshError, ErrorCode } from './errors.js';
import type { Host } from './host.js';

/**
 * A plugin: a name, a version, and `register`, which the host calls once to
 * let it add its tools, taps, guards and gate handlers. Plugins are made by a
 * named factory called with the plugin's options (`toolFs({ roots })`).
 */
export interface Plugin {
  /** Unique per host: a second plugin with the same name is refused. */
  readonly name: string;
  readonly version: string;
  /** Names of plugins that must be registered first. */
  readonly dependencies?: readonly string[];
  register(host: Host): void | Promise<void>;
}

/** Declares a plugin, checking its shape at once. */
export function definePlugin(plugin: Plugin): Plugin {
  if (typeof plugin !== 'object' || plugin === null) {
    throw new DshError(ErrorCode.INVALID_PLUGIN, 'a plugin must be an object');
  }
  if (typeof plugin.name !== 'string' || plugin.name.length === 0) {
    throw new DshError(ErrorCode.INVALID_PLUGIN, 'a plugin needs a non-empty name');
  }
  if (typeof plugin.version !== 'string' || typeof plugin.register !== 'function') {
    throw new DshError(ErrorCode.INVALID_PLUGIN, `plugin "${plugin.name}" needs a version string and a register function`);
  }
  return Object.freeze({ ...plugin });
}
